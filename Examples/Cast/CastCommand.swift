import ArgumentParser
import CastCommon

/// `cast`: a command-line Cast sender for Linux, built on the swift-cast modules.
///
/// Progress goes to stderr and results to stdout (as JSON with `--json`), so
/// scripts can read one and people the other. Every failure exits with its
/// own code (``CommandFailure/exitCode``).
@main
struct CastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cast",
        abstract: "Control Cast receivers from Linux: apps, media, custom channels and Remote Display.",
        discussion: """
            Exit codes: 0 success, 64 bad arguments, 3 device not found, 4 connection failed, \
            5 launch failed, 6 media request failed, 7 Remote Display offer rejected, \
            8 timed out, 9 unreadable input file, 10 capture failed (screen or sound), 1 anything else. \
            With --json, a failure is also a JSON object on stdout: \
            {"error": {"code": "connectionFailed", "exitCode": 4, "message": "..."}}.
            """,
        version: CastFramework.version,
        subcommands: [
            DemoCommand.self,
            DiscoverCommand.self,
            StatusCommand.self,
            LaunchCommand.self,
            StopApplicationCommand.self,
            PlayCommand.self,
            PauseCommand.self,
            ResumeCommand.self,
            StopMediaCommand.self,
            SeekCommand.self,
            QueueCommand.self,
            NextCommand.self,
            PreviousCommand.self,
            RateCommand.self,
            TracksCommand.self,
            StyleCommand.self,
            VolumeCommand.self,
            WatchCommand.self,
            UICommand.self,
            TrayCommand.self,
            SpeakersCommand.self,
            MuteCommand.self,
            MessageCommand.self,
            ScreenCommand.self,
            AudioCommand.self,
        ]
    )
}
