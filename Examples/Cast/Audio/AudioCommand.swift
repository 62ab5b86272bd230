import ArgumentParser
import CastCapture
import CastKit
import CastRemoteDisplay
import Foundation
import NIOConcurrencyHelpers

/// `cast audio`: sound to a speaker, a speaker group or a TV over
/// audio-only Cast Streaming (``AudioCastSession``) — hundreds of
/// milliseconds behind, not the media player's seconds.
struct AudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract:
            "Send sound to a speaker, speaker group or TV with Cast Streaming's low latency: a file, raw PCM on stdin, or this machine's sound."
    )

    @Argument(
        help:
            "A WAV file, any file ffmpeg decodes, or - for raw 16-bit little-endian PCM on stdin (see --rate, --channels)."
    )
    var input: String?
    @Flag(help: "Send this machine's sound (the default sink's monitor, through PulseAudio or PipeWire) until Ctrl-C.")
    var capture = false
    @Option(help: "With --capture: the sound server to record from (default: libpulse's choice).")
    var audioServer: String?
    @Option(
        help: ArgumentHelp(
            "With --capture: the sound source to record, or app:NAME for one application's sound alone "
                + "(default: the default sink's monitor, all the desktop plays).", valueName: "source"))
    var audioSource: String?
    @Option(help: "With -: the PCM's sample rate, Hz.") var rate = 48_000
    @Option(help: "With -: the PCM's channels (1 or 2).") var channels = 2
    @Option(help: "Target playout delay, milliseconds.") var delay = 400
    @Option(help: "Opus bitrate, kbit/s.") var bitrate = 128
    @Option(help: "Seconds to send (default: the whole input; with --capture, until Ctrl-C).") var seconds: Double?
    @Flag(help: "Leave the receiver's app running when done (it is stopped by its session id otherwise).")
    var keepApp = false
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard self.capture != (self.input != nil) else {
            throw ValidationError("give a file, - for stdin, or --capture")
        }
        guard (1...2).contains(self.channels) else { throw ValidationError("--channels must be 1 or 2") }
        guard (8_000...192_000).contains(self.rate) else { throw ValidationError("--rate must be 8000…192000") }
        guard (6...510).contains(self.bitrate) else { throw ValidationError("--bitrate must be 6…510 kbit/s") }
        guard (1...5_000).contains(self.delay) else { throw ValidationError("--delay must be 1…5000 ms") }
        guard (self.seconds ?? 1) > 0 else { throw ValidationError("--seconds must be positive") }
    }

    func run() async throws {
        try await self.reportingFailures {
            var file: SoundFile?
            if let input = self.input {
                file =
                    input == "-"
                    ? SoundFile(rawPCM: .standardInput, sampleRate: self.rate, channelCount: self.channels)
                    : try await SoundFile.open(URL(fileURLWithPath: input))
            }
            let interrupted = Interruption.install()
            let summary = try await ReceiverLink.with(self.options) { link in
                Output.progress("launching the audio mirroring app")
                let (sender, group) = try await self.start(on: link.link, feeding: file)
                defer { group.cancel() }
                Output.progress(
                    "sending \(self.capture ? "this machine's sound" : self.input == "-" ? "stdin" : self.input ?? "") "
                        + "to \(sender.audio.applicationID) (Opus \(self.bitrate) kbit/s, delay \(self.delay) ms); "
                        + "Ctrl-C stops")
                let lost = ConnectionReport.follow(sender.audio)
                try await self.watch(sender, interrupted: interrupted)
                let summary = AudioStatistics(sender.audio)
                if !self.keepApp { Output.progress("stopping \(sender.audio.applicationID)") }
                try await sender.stop(stoppingApplication: !self.keepApp)
                // The session says it was lost; the event (which may come a moment later) says why.
                if sender.audio.session.state == .ended(.connectionLost) {
                    throw CommandFailure(
                        .connectionFailed,
                        "the device did not come back" + (lost.failure.map { ": \($0.summary)" } ?? ""))
                }
                return summary
            }
            try Output.result(json: summary.json, text: summary.line, asJSON: self.options.json)
        }
    }

    /// The desktop's sound (``DesktopSoundMirror``), or `file` fed to an audio session; and the task
    /// that prints a group's members, begun before a file's sound flows.
    private func start(on link: CastDeviceLink, feeding file: SoundFile?) async throws -> (
        SoundSender, Task<Void, Never>
    ) {
        let audio = RemoteDisplayConfiguration.Audio(bitrate: self.bitrate * 1_000)
        guard let file else {
            let mirror = try await DesktopSoundMirror.start(
                on: link,
                configuration: DesktopSoundMirror.Configuration(
                    sound: DesktopAudioConfiguration(server: self.audioServer, source: self.audioSource),
                    audio: audio, targetDelay: .milliseconds(self.delay)))
            return (.desktop(mirror), GroupMembers.follow(mirror.audio))
        }
        let session = try await AudioCastSession.start(
            through: link, audio: audio, targetDelay: .milliseconds(self.delay))
        let group = GroupMembers.follow(session)
        return (.file(session, SoundFilePlayback.start(file, into: session)), group)
    }

    /// Prints a statistics line every second until Ctrl-C, `--seconds`, or the sound or session ends.
    private func watch(_ sender: SoundSender, interrupted: Interruption) async throws {
        let start = ContinuousClock.now
        var lastLine = start
        while !interrupted.happened, !sender.hasEnded {
            if let seconds = self.seconds, ContinuousClock.now - start >= .milliseconds(Int(seconds * 1_000)) {
                break
            }
            try await Task.sleep(for: .milliseconds(100))
            if ContinuousClock.now - lastLine >= .seconds(1) {
                lastLine = ContinuousClock.now
                Output.progress(AudioStatistics(sender.audio).line)
            }
        }
    }
}

/// What `cast audio` sends: the desktop's sound, or a file fed on a thread of its own.
private enum SoundSender {
    case desktop(DesktopSoundMirror)
    case file(AudioCastSession, SoundFilePlayback)

    var audio: AudioCastSession {
        switch self {
        case .desktop(let mirror): mirror.audio
        case .file(let audio, _): audio
        }
    }

    /// Whether the sound, or the session, ended by itself.
    var hasEnded: Bool {
        if case .ended = self.audio.session.state { return true }
        switch self {
        case .desktop(let mirror): return mirror.capture.hasEnded
        case .file(_, let playback): return playback.hasEnded
        }
    }

    /// Stops sending; what is queued plays out first. Throws the recording's or the file's failure.
    func stop(stoppingApplication: Bool) async throws {
        switch self {
        case .desktop(let mirror):
            if let failure = await mirror.stop(stoppingApplication: stoppingApplication).failure { throw failure }
        case .file(let audio, let playback):
            var failure: (any Error)?
            do { try await playback.stop() } catch { failure = error }
            await audio.playOut()
            await audio.end(stoppingApplication: stoppingApplication)
            if let failure { throw failure }
        }
    }
}

/// Prints what happens to the control connection, and keeps why the device did not come back.
private final class ConnectionReport: Sendable {
    private let lost = NIOLockedValueBox<CastTransportError?>(nil)

    var failure: CastTransportError? { self.lost.withLockedValue { $0 } }

    static func follow(_ audio: AudioCastSession) -> ConnectionReport {
        let report = ConnectionReport()
        let events = audio.events()
        Task {
            for await event in events {
                switch event {
                case .reconnecting:
                    Output.progress("the connection to the device was lost; reconnecting")
                case .reconnected:
                    Output.progress("reconnected; the same stream goes on")
                case .reconnectionFailed(let error):
                    report.lost.withLockedValue { $0 = error }
                }
            }
        }
        return report
    }
}
