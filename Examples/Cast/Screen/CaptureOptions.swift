import ArgumentParser
import CastCapture
import CastKit
import CastRemoteDisplay
import Foundation

/// `cast screen`'s options for mirroring this machine's display and sound.
struct CaptureOptions: ParsableArguments {
    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "What of this machine to mirror: auto (the default: the portal in a Wayland session, else the X screen); screen, "
                + "output NAME (a RandR monitor) or window ID (xwininfo's id) on X11; portal on Wayland (the desktop "
                + "asks which screen or window; the answer is remembered).",
            valueName: "source"))
    var capture: [String] = []
    @Flag(
        help:
            "Make the TV a second screen instead of a copy: the desktop adds a monitor of --max-size (1920x1080) beside the others, windows moved onto it show on the TV, and it goes when the cast ends (GNOME, sway, or a portal that offers virtual monitors)."
    )
    var extend = false
    @Option(help: "The X display to capture (default: $DISPLAY).") var display: String?
    @Option(
        help: ArgumentHelp(
            "With --capture: the largest picture sent; a larger screen is scaled down to fit, its shape kept "
                + "(default 1920x1080; the receiver may ask for less).",
            valueName: "WIDTHxHEIGHT"))
    var maxSize: String?
    @Flag(help: "With --capture portal: ask which screen or window again instead of reusing the last answer.")
    var ask = false
    @Flag(help: "Leave the cursor out of the picture.") var hideCursor = false
    @Flag(
        help:
            "Fail when the desktop's sound cannot be recorded (it is sent by default when a sound server answers: the default sink's monitor, through PulseAudio or PipeWire)."
    )
    var captureAudio = false
    @Option(help: "The sound server to record from (default: libpulse's choice).") var audioServer: String?
    @Option(
        help: ArgumentHelp(
            "The sound source to record, or app:NAME for one application's sound alone (default: the default "
                + "sink's monitor, all the desktop plays).", valueName: "source"))
    var audioSource: String?

    /// The largest picture `--max-size` allows: 1920×1080 unless it says otherwise.
    func maximumSize() throws -> RemoteDisplayConfiguration.Resolution {
        guard let text = self.maxSize else { return .hd1080 }
        guard let size = RemoteDisplayConfiguration.Resolution(text), (320...4_096).contains(size.width),
            (240...4_096).contains(size.height)
        else {
            throw ValidationError("--max-size takes WIDTHxHEIGHT, each side 320…4096 (e.g. 1280x720), not \(text)")
        }
        // An encoder takes even sides: an odd one is rounded down.
        return RemoteDisplayConfiguration.Resolution(width: size.width & ~1, height: size.height & ~1)
    }

    /// The source `--capture` names, or a new monitor with `--extend`.
    func source() throws -> CaptureSource {
        let text = self.capture.joined(separator: " ")
        if self.extend {
            guard text.isEmpty else {
                throw ValidationError("--extend makes a screen of its own; it takes no --capture")
            }
            return .virtualMonitor(try self.maximumSize())
        }
        if text.isEmpty || text == "auto" {
            return .forCurrentSession(environment: ProcessInfo.processInfo.environment)
        }
        guard let source = CaptureSource(text) else {
            throw ValidationError("--capture takes auto, screen, output NAME, window ID (such as 0x3a00007) or portal")
        }
        return source
    }

    /// The restore token of the last portal grant, unless `--ask`.
    func storedRestoreToken() -> String? {
        self.ask ? nil : PortalGrant.standard(application: "cast").restoreToken
    }
}
