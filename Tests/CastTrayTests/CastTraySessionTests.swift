import CastDBus
import CastEmulator
import CastKit
import CastTestSupport
import CastTray
import CastUI
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The tray in this process on a bus of the test's own, the session's media
/// on the emulator: a tray host that starts after the tray still gets it
/// (the item registers when the watcher appears), the menu follows the
/// media, and its Pause and Stop items reach the receiver while Stop
/// casting goes to the app — all through real D-Bus calls.
@Suite(
    .timeLimit(.minutes(2)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"), "needs dbus-daemon"))
struct CastTraySessionTests {
    /// A tray host's watcher: owns `org.kde.StatusNotifierWatcher` and records who registers.
    final class Watcher: Sendable {
        let registered = NIOLockedValueBox<[String]>([])
        private let stopped = NIOLockedValueBox(false)

        init(address: String) throws {
            let bus = try SessionBus(address: address)
            try bus.requestName("org.kde.StatusNotifierWatcher")
            let thread = Thread { [registered, stopped] in
                try? bus.serve(
                    until: { stopped.withLockedValue { $0 } },
                    handler: { call in
                        guard call.member == "RegisterStatusNotifierItem", let service = call.arguments.first?.string
                        else { return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: call.member) }
                        registered.withLockedValue { $0.append(service) }
                        return .reply([])
                    })
            }
            thread.start()
        }

        func stop() { self.stopped.withLockedValue { $0 = true } }
    }

    @Test func theMenuFollowsTheMediaAndItsItemsReachTheReceiver() async throws {
        let desktop = try await ScreenCastDesktop.start(pipeWire: false)
        let bus = desktop.busAddress
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .chromecast, mediaClock: .manual()), logger: quiet)
        try await emulator.start()
        var options = CastOptions(sessionStore: nil, logger: quiet)
        options.deviceAuthentication = .off
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        options.discovery.interfaces = .named([])
        let context = CastContext(options: options)
        let asked = NIOLockedValueBox<[TrayAction]>([])
        let tray = try CastTray(context: context, offersWindowChoice: false, busAddress: bus) { action in
            asked.withLockedValue { $0.append(action) }
        }
        // No tray host yet: not shown. The host starts: the item registers with it.
        #expect(!tray.isShown)
        let watcher = try Watcher(address: bus)
        defer { watcher.stop() }
        #expect(try await waitUntil(within: .seconds(10)) { tray.isShown })
        #expect(watcher.registered.withLockedValue { $0 } == [tray.busName])

        // A film plays on the TV: the menu says so, with Pause and Stop.
        let session = try await context.sessionManager.startSession(on: emulator.loopbackDevice)
        var metadata = MediaMetadata(type: .movie)
        metadata.setString("Big Buck Bunny", forKey: .title)
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata,
                    duration: 600)))
        emulator.advanceMediaClock(by: .milliseconds(100))
        func item(_ label: String) -> TrayMenu.Item? { tray.menu.root.children.first { $0.label == label } }
        #expect(try await waitUntil(within: .seconds(10)) { item("Pause Big Buck Bunny")?.isEnabled == true })
        #expect(item("Stop casting")?.isEnabled == true)
        // The icon follows the Cast button's model, a stream of its own: under a sanitizer it
        // read "cast-connecting" still when the media's items were in (a fresh-clone CI's make tsan).
        let connected = try await waitUntil(within: .seconds(10)) { tray.menu.iconName == "cast-connected" }
        #expect(connected, "the icon is \(tray.menu.iconName)")

        // A host's calls on the bus: the layout shows the film, its Pause reaches the receiver.
        let host = try SessionBus(address: bus)
        let layout = try await onOwnThread {
            try host.call(
                tray.busName, path: "/MenuBar", interface: "com.canonical.dbusmenu", member: "GetLayout",
                arguments: [.int32(0), .int32(-1), .typedArray(elementSignature: "s", [])])
        }
        let labels = (layout.last?.elements?[2].elements ?? []).compactMap {
            $0.elements?[1].dictionary?["label"]?.string
        }
        #expect(labels.contains("Pause Big Buck Bunny"), "\(labels)")
        func click(_ label: String) async throws {
            let id = try #require(item(label)?.id)
            _ = try await onOwnThread {
                try host.call(
                    tray.busName, path: "/MenuBar", interface: "com.canonical.dbusmenu", member: "Event",
                    arguments: [.int32(id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
            }
        }
        var events = emulator.events()
        try await click("Pause Big Buck Bunny")
        #expect(await Self.received("PAUSE", in: events) != nil)
        #expect(try await waitUntil(within: .seconds(10)) { item("Play Big Buck Bunny") != nil })
        events = emulator.events()
        try await click("Stop Big Buck Bunny")
        #expect(await Self.received("STOP", in: events) != nil)
        // Stop casting is the app's: it is handed over, not done here.
        try await click("Stop casting")
        #expect(try await waitUntil(within: .seconds(5)) { asked.withLockedValue { $0 } == [.stopCasting] })

        await tray.close()
        await context.sessionManager.endSession()
        await emulator.stop()
        await desktop.stop()
    }

    static func received(_ type: String, in events: AsyncStream<EmulatorEvent>) async -> JSONValue? {
        let event = await first(events, within: .seconds(10)) { event in
            guard case .messageReceived(_, let message) = event,
                let json = try? JSONValue(parsing: message.text ?? "")
            else { return false }
            return json["type"] == .string(type)
        }
        guard case .messageReceived(_, let message)? = event else { return nil }
        return try? JSONValue(parsing: message.text ?? "")
    }
}
