import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing

/// `cast ui` in a real terminal: tmux runs it, the test types keys and reads the pane.
struct TmuxPane {
    let session = "cast-ui-\(UUID().uuidString.prefix(8))"

    static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    /// Starts `command` in a detached session of `columns` × `rows`; the pane
    /// stays after the command ends and shows its exit status.
    func start(_ command: String, columns: Int = 100, rows: Int = 30) async throws {
        try await Self.tmux(
            "new-session", "-d", "-s", self.session, "-x", "\(columns)", "-y", "\(rows)",
            "\(command); echo \"EXITED $?\"; sleep 60")
    }

    /// The pane's text now.
    func text() async throws -> String {
        try await Self.tmux("capture-pane", "-p", "-t", self.session)
    }

    /// Waits (at most `timeout`) until the pane's text satisfies `condition`; the last text.
    @discardableResult
    func wait(within timeout: Duration = .seconds(15), until condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var text = try await self.text()
        while !condition(text), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            text = try await self.text()
        }
        return text
    }

    /// Types `keys` (tmux key names: `Enter`, `Right`, `Space`, or text).
    func send(_ keys: String...) async throws {
        try await Self.tmux(["send-keys", "-t", self.session] + keys)
    }

    func resize(columns: Int, rows: Int) async throws {
        try await Self.tmux("resize-window", "-t", self.session, "-x", "\(columns)", "-y", "\(rows)")
    }

    /// Ends the session (from a `defer`, so on the calling thread: a few milliseconds).
    func kill() {
        _ = try? CommandOutput.waiting(for: ["/usr/bin/tmux", "kill-session", "-t", self.session])
    }

    @discardableResult
    static func tmux(_ arguments: String...) async throws -> String {
        try await Self.tmux(arguments)
    }

    @discardableResult
    static func tmux(_ arguments: [String]) async throws -> String {
        try await CommandOutput.of(["/usr/bin/tmux"] + arguments, timeLimit: .seconds(20)).text
    }
}

@Suite(.timeLimit(.minutes(3)), .enabled(if: TmuxPane.isAvailable, "needs tmux"))
struct CastUITerminalTests {
    /// The wire message of `type` on `namespace` the emulator received after `events` began
    /// (within 15 s).
    static func received(
        _ type: String, namespace: String, in events: AsyncStream<EmulatorEvent>
    ) async -> JSONValue? {
        let event = await first(events, within: .seconds(15)) { event in
            guard case .messageReceived(_, let message) = event, message.namespace == namespace,
                let json = try? JSONValue(parsing: message.text ?? "")
            else { return false }
            return json["type"] == .string(type)
        }
        guard case .messageReceived(_, let message)? = event else { return nil }
        return try? JSONValue(parsing: message.text ?? "")
    }

    /// Choose the device, play, pause, seek, volume, stop casting, resize, quit — each checked
    /// on the screen and on the wire.
    @Test func chooseADevicePlayPauseSeekVolumeStopAndQuit() async throws {
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(name: "Test TV", profile: .chromecast), logger: quiet)
        try await emulator.start()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("cast-ui-\(UUID().uuidString)")
        let pane = TmuxPane()
        defer { pane.kill() }
        try await pane.start(
            "XDG_STATE_HOME=\(state.path) \(CastCommandLineTests.executable("cast")) ui "
                + "--device 127.0.0.1:\(emulator.port) --no-mdns")

        // The chooser lists the device; the introduction shows once.
        // The tip comes in a redraw of its own, after the device is listed (under ThreadSanitizer a
        // fresh clone's run read the screen between the two): both are waited for.
        var screen = try await pane.wait { $0.contains("> 127.0.0.1") && $0.contains("Tip: Choose a device to cast") }
        #expect(screen.contains("DEVICES"), "\(screen)")
        #expect(screen.contains("Tip: Choose a device to cast"))
        try await pane.send("Enter")
        screen = try await pane.wait { $0.contains("connected to 127.0.0.1") && $0.contains("NOW PLAYING") }
        #expect(screen.contains("nothing playing on Default Media Receiver"), "\(screen)")
        #expect(emulator.runningApplication?.application.appID == CastApplicationID.defaultMediaReceiver)
        #expect(!screen.contains("Tip:"))
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("cast/ui-introduction-shown").path))

        // Media loaded by another sender shows with a progress bar and its keys.
        var options = CastOptions(sessionStore: nil, logger: quiet)
        options.deviceAuthentication = .off
        let manager = SessionManager(options: options)
        let session = try await manager.startSession(on: emulator.loopbackDevice)
        var metadata = MediaMetadata(type: .movie)
        metadata.setString("Big Buck Bunny", forKey: .title)
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata,
                    duration: 600)))
        screen = try await pane.wait { $0.contains("Big Buck Bunny") && $0.contains("PLAYING") }
        #expect(screen.contains("/ 10:00"), "\(screen)")
        #expect(screen.contains("space pause") && screen.contains("←/→ seek 10 s"), "\(screen)")

        // Pause, seek, volume: on the screen and on the wire.
        var events = emulator.events()
        try await pane.send("Space")
        #expect(await Self.received("PAUSE", namespace: CastNamespace.media, in: events) != nil)
        screen = try await pane.wait { $0.contains("PAUSED") }
        #expect(screen.contains("space play"), "\(screen)")

        events = emulator.events()
        try await pane.send("Right")
        let seek = await Self.received("SEEK", namespace: CastNamespace.media, in: events)
        #expect((seek?["currentTime"]?.doubleValue ?? 0) >= 10, "\(String(describing: seek))")

        events = emulator.events()
        try await pane.send("-")
        let volume = await Self.received("SET_VOLUME", namespace: CastNamespace.receiver, in: events)
        #expect(volume?["volume"]?["level"] == 0.96, "\(String(describing: volume))")
        screen = try await pane.wait { $0.contains("96%") }
        #expect(screen.contains("Volume ["))

        // Resizing redraws at the new width.
        try await pane.resize(columns: 60, rows: 20)
        screen = try await pane.wait { $0.split(separator: "\n").contains { $0 == String(repeating: "─", count: 60) } }
        #expect(screen.contains("Big Buck Bunny"), "\(screen)")

        // Stop casting stops the app; q quits cleanly.
        try await pane.send("s")
        screen = try await pane.wait { $0.contains("not connected") }
        #expect(emulator.runningApplication == nil)
        try await pane.send("q")
        screen = try await pane.wait { $0.contains("EXITED") }
        #expect(screen.contains("EXITED 0"), "\(screen)")
        await manager.endSession()
        await emulator.stop()
    }
}
