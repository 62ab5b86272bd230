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
        let sides = text.lowercased().split(separator: "x").map { Int($0) }
        guard sides.count == 2, let width = sides[0], let height = sides[1], width >= 320, height >= 240,
            width <= 4_096, height <= 4_096
        else {
            throw ValidationError("--max-size takes WIDTHxHEIGHT, each side 320…4096 (e.g. 1280x720), not \(text)")
        }
        // An encoder takes even sides: an odd one is rounded down.
        return RemoteDisplayConfiguration.Resolution(width: width & ~1, height: height & ~1)
    }

    /// The source `--capture` names.
    func source() throws -> CaptureSource {
        switch (self.capture.first, self.capture.count) {
        case (nil, 0), ("auto", 1): return .forCurrentSession(environment: ProcessInfo.processInfo.environment)
        case ("screen", 1): return .screen
        case ("portal", 1): return .portal
        case ("output", 2): return .output(self.capture[1])
        case ("window", 2):
            let text = self.capture[1]
            let digits = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
            guard let id = UInt32(digits, radix: text.hasPrefix("0x") ? 16 : 10) else {
                throw ValidationError("--capture window takes an X window id such as 0x3a00007, not \(text)")
            }
            return .window(id)
        default:
            throw ValidationError("--capture takes auto, screen, output NAME, window ID or portal")
        }
    }

    /// The restore token of the last portal grant, unless `--ask`.
    func storedRestoreToken() -> String? {
        self.ask ? nil : PortalGrant.standard(application: "cast").restoreToken
    }
}
