import CastTestSupport
import CastX11TestSupport
import Foundation
import Testing

extension OpenScreenReceiverTests {
    /// `cast screen --capture portal --capture-audio` on the desktops people
    /// run — sway with xdg-desktop-portal-wlr, GNOME's mutter with its
    /// portal, KDE's KWin with its portal (a window: HeadlessKWin) — with
    /// PipeWire's pulse server playing a tone, to Google's receiver: it
    /// decodes the moving picture the real portal shares and the desktop's
    /// sound (issue 51). An X client on the desktop's Xwayland draws a new
    /// picture each time the receiver has decoded one more.
    @Test(arguments: ["sway", "GNOME", "KDE"])
    func itDecodesWhatARealPortalSharesWithTheDesktopsSound(_ desktopName: String) async throws {
        let available =
            switch desktopName {
            case "sway": SwayScreenCastPortal.isAvailable && UnprivilegedUser.isAvailable
            case "GNOME": HeadlessMutter.isAvailable
            default: HeadlessKWin.isAvailable
            }
        try #require(available, "\(desktopName) and its portal are not installed (make setup)")
        try await RealTimeTurns.take(.childProcesses) {
            try await SoundServer.with(.pipeWire) { sound in
                let desktop = try #require(sound.desktop)
                try await Self.onRealDesktop(desktopName, desktop) { painter, environment in
                    try await Self.mirrorToOpenScreen(
                        desktopName, painter: painter, sound: sound,
                        environment: environment.merging(desktop.environment) { a, _ in a })
                }
            }
        }
    }

    /// Runs `body` with `name`'s compositor and real portal on `desktop`:
    /// what to draw on (the whole screen, or on KDE a window) and what
    /// `cast` needs in its environment (for GNOME and KDE, a state
    /// directory holding the token of a stored grant).
    private static func onRealDesktop(
        _ name: String, _ desktop: ScreenCastDesktop, _ body: (XPainter, [String: String]) async throws -> Void
    ) async throws {
        let token = UUID().uuidString.lowercased()
        switch name {
        case "GNOME":
            try await HeadlessMutter.with(on: desktop, width: 640, height: 360) { mutter in
                try mutter.grant(restoreToken: token)
                let painter = try XPainter(display: mutter.xDisplay, x: 0, y: 0, width: 640, height: 360)
                try await body(painter, try Self.stateHolding(token, in: desktop))
            }
        case "KDE":
            try await HeadlessKWin.with(on: desktop, width: 1280, height: 720) { kwin in
                let title = "cast-test-\(token.prefix(8))"
                let painter = try XPainter(display: kwin.xDisplay, x: 0, y: 0, width: 640, height: 360, title: title)
                try kwin.grant(restoreToken: token, window: try await kwin.windowID(titled: title))
                try await body(painter, try Self.stateHolding(token, in: desktop))
            }
        default:
            try await SwayScreenCastPortal.with(on: desktop, output: (width: 640, height: 360)) { sway, _ in
                try await body(try XPainter(display: sway.xDisplay, x: 0, y: 0, width: 640, height: 360), [:])
            }
        }
    }

    /// `cast`'s environment with a state directory that holds `token` as
    /// the screen-cast restore token, where `cast screen` keeps it.
    private static func stateHolding(_ token: String, in desktop: ScreenCastDesktop) throws -> [String: String] {
        let state = desktop.directory.appendingPathComponent("cast-state")
        let file = state.appendingPathComponent("cast/screencast-restore-token")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data((token + "\n").utf8).write(to: file)
        return ["XDG_STATE_HOME": state.path]
    }

    private static func mirrorToOpenScreen(
        _ desktopName: String, painter: XPainter, sound: SoundServer, environment: [String: String]
    )
        async throws
    {
        let receiver = try await OpenScreenReceiver.start()
        let tone = try sound.playTone(frequency: 440, amplitude: 0.5, seconds: 12)
        let cast = try InteractiveProcess(
            [
                CastCommandLineTests.executable("cast"), "screen", "--capture", "portal", "--capture-audio",
                "--audio-server", sound.server, "--seconds", "5", "--codecs", "vp8", "--device",
                "127.0.0.1:\(OpenScreenReceiver.port)",
            ], environment: environment)
        let decoded = { (kind: String) in
            Self.decoded(kind, in: String(decoding: (try? Data(contentsOf: receiver.logFile)) ?? Data(), as: UTF8.self))
                .count
        }
        // A new picture each time one more is decoded: the portals send pictures when the screen changes.
        var number = 0
        while cast.exitStatus == nil {
            number += 1
            painter.draw([UInt8](repeating: UInt8(truncatingIfNeeded: number * 37), count: 640 * 360 * 4))
            let before = decoded("video")
            _ = try await waitUntil(within: .seconds(2)) { decoded("video") > before || cast.exitStatus != nil }
        }
        await tone.stop()
        let log = receiver.stop()
        let video = Self.decoded("video", in: log)
        let audio = Self.decoded("audio", in: log)
        print(
            "\(desktopName): Open Screen decoded \(video.count) video and \(audio.count) audio frames; the first: \(video.first ?? "")"
        )
        #expect(cast.exitStatus == 0, "\(cast.stderr.joined(separator: "\n"))")
        #expect(video.count >= 30, "\(video.count) pictures decoded; \(cast.stderr.suffix(5))")
        #expect(video.first?.contains("640x360") == true, "\(video.first ?? "")")
        #expect(log.contains("codec=vp8") || log.contains("Found codec: vp8"), "the receiver names no VP8 decoder")
        #expect(audio.count >= 100, "\(audio.count) sound frames decoded")
        await cast.stop()
    }

    /// The receiver's lines for each decoded frame of `kind` (video, audio):
    /// `DECODED video frame 640x360 codec=vp8 …` with the decoded-frame log
    /// peers.md describes, `decoded frame video 640x360 fmt=0` with the one
    /// built on this machine.
    static func decoded(_ kind: String, in log: String) -> [Substring] {
        log.split(separator: "\n").filter {
            $0.contains("DECODED \(kind) frame") || $0.contains("decoded frame \(kind)")
        }
    }
}
