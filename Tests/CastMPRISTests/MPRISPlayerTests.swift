import CastDBus
import CastEmulator
import CastKit
import CastMPRIS
import CastTestSupport
import CastUI
import Foundation
import Testing

/// `dbus-send --print-reply` on `bus`.
func dbusSend(_ bus: String, _ arguments: String...) async throws -> String {
    try await CommandOutput.dbusSend(bus, arguments)
}

func dbusSend(_ bus: String, _ arguments: [String]) async throws -> String {
    try await CommandOutput.dbusSend(bus, arguments)
}

@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-send"), "needs dbus-send"))
struct MPRISPlayerTests {
    /// The desktop's side, on a private session bus: properties, PlayPause, Seek and Volume
    /// through dbus-send reach the emulator's player; changes arrive as PropertiesChanged.
    @Test func theDesktopsMediaControlsDriveTheReceiver() async throws {
        let desktop = try await ScreenCastDesktop.start(pipeWire: false)
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .chromecast, mediaClock: .manual()), logger: quiet)
        try await emulator.start()
        var options = CastOptions(sessionStore: nil, logger: quiet)
        options.deviceAuthentication = .off
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        let manager = SessionManager(options: options)
        let controller = MediaControllerModel(sessionManager: manager)
        let volume = VolumeModel(sessionManager: manager)
        let player = try MPRISPlayer(
            controller: controller, volume: volume, identity: "Cast test", busAddress: desktop.busAddress)
        defer { player.close() }
        let bus = desktop.busAddress
        let name = player.busName
        #expect(name.hasPrefix("org.mpris.MediaPlayer2.cast.instance"))
        func property(_ interface: String, _ property: String) async throws -> String {
            try await dbusSend(
                bus, "--dest=\(name)", "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Get",
                "string:\(interface)", "string:\(property)")
        }
        func call(_ member: String, _ arguments: String...) async throws -> String {
            try await dbusSend(
                bus,
                ["--dest=\(name)", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player.\(member)"]
                    + arguments)
        }

        // Nothing cast yet: stopped, no track.
        #expect(try await property("org.mpris.MediaPlayer2", "Identity").contains(#"string "Cast test""#))
        #expect(try await property("org.mpris.MediaPlayer2.Player", "PlaybackStatus").contains(#""Stopped""#))
        #expect(try await property("org.mpris.MediaPlayer2.Player", "Metadata").contains("TrackList/NoTrack"))
        let introspection = try await dbusSend(
            bus, "--dest=\(name)", "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Introspectable.Introspect")
        #expect(introspection.contains(#"<method name="PlayPause"/>"#))

        // A movie plays on the TV.
        let session = try await manager.startSession(on: emulator.loopbackDevice)
        var metadata = MediaMetadata(type: .movie, images: [MediaImage(url: "https://img.example/poster.jpg")])
        metadata.setString("Big Buck Bunny", forKey: .title)
        metadata.setString("Blender Foundation", forKey: .subtitle)
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata,
                    duration: 600)))
        emulator.advanceMediaClock(by: .milliseconds(100))
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !property("org.mpris.MediaPlayer2.Player", "PlaybackStatus").contains(#""Playing""#),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(50))
        }
        let track = try await property("org.mpris.MediaPlayer2.Player", "Metadata")
        #expect(track.contains("Big Buck Bunny"), "\(track)")
        #expect(track.contains("Blender Foundation"))
        #expect(track.contains("https://img.example/poster.jpg"))
        #expect(track.contains("int64 600000000"), "\(track)")
        #expect(try await property("org.mpris.MediaPlayer2.Player", "CanSeek").contains("boolean true"))
        #expect(try await property("org.mpris.MediaPlayer2.Player", "CanPause").contains("boolean true"))
        // Whether the track can be played, not whether it is paused (the MPRIS spec); playerctl skips a player without it.
        #expect(try await property("org.mpris.MediaPlayer2.Player", "CanPlay").contains("boolean true"))

        // PlayPause from the desktop pauses the TV, and the change is announced.
        let listener = try SessionBus(address: bus)
        try listener.addMatch(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                + "path='/org/mpris/MediaPlayer2'")
        var events = emulator.events()
        _ = try await call("PlayPause")
        #expect(await Self.received("PAUSE", in: events) != nil)
        var announced: [String: DBusValue]?
        let until = ContinuousClock.now + .seconds(10)
        while announced?["PlaybackStatus"] != .string("Paused"), ContinuousClock.now < until {
            let arguments = try listener.waitForSignal(
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                path: "/org/mpris/MediaPlayer2", until: until, isCancelled: { false })
            announced = arguments?.dropFirst().first?.dictionary
        }
        #expect(announced?["PlaybackStatus"] == .string("Paused"))
        #expect(try await property("org.mpris.MediaPlayer2.Player", "PlaybackStatus").contains(#""Paused""#))

        // Seek by 30 s, and the volume set from the desktop.
        events = emulator.events()
        try listener.addMatch("type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked'")
        _ = try await call("Seek", "int64:30000000")
        let seek = await Self.received("SEEK", in: events)
        #expect((seek?["currentTime"]?.doubleValue ?? 0) >= 30, "\(String(describing: seek))")
        // The jump is announced as Seeked, with the new position in microseconds. An earlier
        // Seeked may come first: the emulator's media clock is manual and stands still while
        // the player extrapolates the position on the wall clock, so the paused status, late
        // on a loaded machine, is a jump back too (seen once under TSan with a core busy).
        let seekDeadline = ContinuousClock.now + .seconds(10)
        var seeked: [DBusValue]?
        while (seeked?.first?.integer ?? 0) < 30_000_000, ContinuousClock.now < seekDeadline {
            seeked = try listener.waitForSignal(
                interface: "org.mpris.MediaPlayer2.Player", member: "Seeked", path: "/org/mpris/MediaPlayer2",
                until: seekDeadline, isCancelled: { false })
        }
        #expect((seeked?.first?.integer ?? 0) >= 30_000_000, "\(String(describing: seeked))")
        events = emulator.events()
        _ = try await dbusSend(
            bus, "--dest=\(name)", "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Set",
            "string:org.mpris.MediaPlayer2.Player", "string:Volume", "variant:double:0.5")
        let level = await Self.received("SET_VOLUME", in: events)
        #expect(level?["volume"]?["level"] == 0.5, "\(String(describing: level))")

        // What cannot be done is a D-Bus error, not a crash.
        #expect(try await call("OpenUri", "string:https://example.com/a.mp4").contains("NotSupported"))
        #expect(try await call("Seek", "string:ten").contains("InvalidArgs"))

        await manager.endSession()
        await emulator.stop()
        player.close()
        await desktop.stop()
        withExtendedLifetime((controller, volume)) {}
    }

    /// playerctl, the MPRIS client status bars and desktop widgets read
    /// players through, lists ours while the TV plays, prints its metadata,
    /// and its play-pause, seek and volume reach the receiver.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl"), "needs playerctl"))
    func playerctlReadsAndControlsThePlayer() async throws {
        let desktop = try await ScreenCastDesktop.start(pipeWire: false)
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .chromecast, mediaClock: .manual()), logger: quiet)
        try await emulator.start()
        var options = CastOptions(sessionStore: nil, logger: quiet)
        options.deviceAuthentication = .off
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        let manager = SessionManager(options: options)
        let controller = MediaControllerModel(sessionManager: manager)
        let volume = VolumeModel(sessionManager: manager)
        let player = try MPRISPlayer(
            controller: controller, volume: volume, identity: "Cast test", busAddress: desktop.busAddress)
        defer { player.close() }
        let instance = String(player.busName.dropFirst("org.mpris.MediaPlayer2.".count))
        func playerctl(_ arguments: String...) async throws -> String {
            try await CommandOutput.of(
                ["/usr/bin/playerctl", "--player=\(instance)"] + arguments,
                environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let session = try await manager.startSession(on: emulator.loopbackDevice)
        var metadata = MediaMetadata(type: .movie, images: [MediaImage(url: "https://img.example/poster.jpg")])
        metadata.setString("Big Buck Bunny", forKey: .title)
        metadata.setString("Blender Foundation", forKey: .subtitle)
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata,
                    duration: 600)))
        emulator.advanceMediaClock(by: .milliseconds(100))
        var status = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while status != "Playing", ContinuousClock.now < deadline {
            status = try await playerctl("status")
        }
        #expect(status == "Playing")
        let listed = try await CommandOutput.of(
            ["/usr/bin/playerctl", "--list-all"], environment: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress])
        #expect(listed.stdout.split(separator: "\n").contains(Substring(instance)), "\(listed.stdout)")
        let read = try await playerctl(
            "metadata", "--format", "{{xesam:title}}|{{xesam:artist}}|{{mpris:length}}|{{mpris:artUrl}}")
        #expect(read == "Big Buck Bunny|Blender Foundation|600000000|https://img.example/poster.jpg")

        var events = emulator.events()
        _ = try await playerctl("play-pause")
        #expect(await Self.received("PAUSE", in: events) != nil)
        events = emulator.events()
        _ = try await playerctl("position", "30+")
        let seek = await Self.received("SEEK", in: events)
        #expect((seek?["currentTime"]?.doubleValue ?? 0) >= 30, "\(String(describing: seek))")
        events = emulator.events()
        _ = try await playerctl("volume", "0.5")
        let level = await Self.received("SET_VOLUME", in: events)
        #expect(level?["volume"]?["level"] == 0.5, "\(String(describing: level))")

        await manager.endSession()
        await emulator.stop()
        player.close()
        await desktop.stop()
        withExtendedLifetime((controller, volume)) {}
    }

    /// Seed 001 (row 105): the desktop's "show the player" (MPRIS `Raise`)
    /// opens the app's controller when the app says how, and the player says
    /// whether it can be raised.
    @Test func raiseOpensTheAppsController() async throws {
        let desktop = try await ScreenCastDesktop.start(pipeWire: false)
        let manager = SessionManager(options: CastOptions(sessionStore: nil))
        let controller = MediaControllerModel(sessionManager: manager)
        let raised = AsyncStream.makeStream(of: Void.self)
        let player = try MPRISPlayer(
            controller: controller, busAddress: desktop.busAddress, raise: { raised.continuation.yield() })
        defer { player.close() }
        func canRaise(_ name: String) async throws -> String {
            try await dbusSend(
                desktop.busAddress, "--dest=\(name)", "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Get",
                "string:org.mpris.MediaPlayer2", "string:CanRaise")
        }
        #expect(try await canRaise(player.busName).contains("boolean true"))
        _ = try await dbusSend(
            desktop.busAddress, "--dest=\(player.busName)", "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Raise")
        #expect(await first(raised.stream) { true } != nil, "Raise reached the app")
        player.close()
        let plain = try MPRISPlayer(controller: controller, name: "plain", busAddress: desktop.busAddress)
        defer { plain.close() }
        #expect(try await canRaise(plain.busName).contains("boolean false"))
        plain.close()
        await desktop.stop()
    }

    @Test func aSecondPlayerOnTheSameNameIsRefused() async throws {
        let desktop = try await ScreenCastDesktop.start(pipeWire: false)
        let manager = SessionManager(options: CastOptions(sessionStore: nil))
        let controller = MediaControllerModel(sessionManager: manager)
        let first = try MPRISPlayer(controller: controller, busAddress: desktop.busAddress)
        let error = #expect(throws: MPRISError.self) {
            try MPRISPlayer(controller: controller, busAddress: desktop.busAddress)
        }
        #expect(error?.code == .nameTaken)
        first.close()
        let unreachable = #expect(throws: MPRISError.self) {
            try MPRISPlayer(controller: controller, busAddress: "unix:path=/nonexistent/bus")
        }
        #expect(unreachable?.code == .busUnavailable)
        await desktop.stop()
    }

    /// The first message of `type` the emulator received on any namespace after `events` began.
    static func received(_ type: String, in events: AsyncStream<EmulatorEvent>) async -> JSONValue? {
        let event = await first(events) { event in
            guard case .messageReceived(_, let message) = event,
                let json = try? JSONValue(parsing: message.text ?? "")
            else { return false }
            return json["type"] == .string(type)
        }
        guard case .messageReceived(_, let message)? = event else { return nil }
        return try? JSONValue(parsing: message.text ?? "")
    }
}
