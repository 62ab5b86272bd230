import CastDBus
import CastEmulator
import CastKit
import CastSystemSleep
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Seed 001/002 (rows 30, 113, 117): the session follows the machine's sleep
/// as logind announces it on a bus of the test's own — suspended cleanly
/// before, reconnected at once after — and another program announcing
/// sleep is not heard.
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon"), "needs dbus-daemon"))
struct SystemSleepTests {
    static let path = "/org/freedesktop/login1"
    static let interface = "org.freedesktop.login1.Manager"

    @Test func theSessionSleepsAndWakesWithTheMachine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cast-sleep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let daemon = try await TestBusDaemon.start(in: folder)
        let address = TestBusDaemon.address(in: folder)
        // logind's stand-in owns its name; the impostor does not.
        let logind = try SessionBus(address: address)
        try logind.requestName("org.freedesktop.login1")
        let impostor = try SessionBus(address: address)

        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(), logger: quiet)
        try await emulator.start()
        var options = CastOptions(sessionStore: nil, logger: quiet)
        options.deviceAuthentication = .off
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        let manager = SessionManager(options: options)
        let session = try await manager.startSession(on: emulator.loopbackDevice)
        let events = manager.events()
        let log = EventRecorder(events)
        let monitor = try SystemSleepMonitor(sessionManager: manager, busAddress: address)

        // The impostor's "going to sleep", broadcast and sent straight to every
        // other connection (the monitor's among them: the bus delivers that whatever
        // its match rules say), then logind's "woke" (nothing to do while connected),
        // then logind's "going to sleep": the signals are handled in order, so once
        // the session is suspended, had the impostor been heard, a suspension, a
        // resume and a second suspension would be logged.
        impostor.emitSignal(
            path: Self.path, interface: Self.interface, member: "PrepareForSleep", arguments: [.boolean(true)])
        let names = try impostor.call(
            "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames", arguments: [])
        let others = (names.first?.elements ?? []).compactMap(\.string).filter {
            $0.hasPrefix(":") && $0 != impostor.uniqueName && $0 != logind.uniqueName
        }
        #expect(!others.isEmpty, "the monitor's connection is not on the bus")
        for name in others {
            impostor.emitSignal(
                path: Self.path, interface: Self.interface, member: "PrepareForSleep", arguments: [.boolean(true)],
                destination: name)
        }
        logind.emitSignal(
            path: Self.path, interface: Self.interface, member: "PrepareForSleep", arguments: [.boolean(false)])
        logind.emitSignal(
            path: Self.path, interface: Self.interface, member: "PrepareForSleep", arguments: [.boolean(true)])
        let asleep = await log.wait { $0.contains { if case .suspended(_, .systemSleep) = $0 { true } else { false } } }
        #expect(asleep != nil)
        #expect(session.state == .suspended)
        #expect(log.kinds == ["suspended"], "\(log.kinds)")

        // Awake: reconnected at once.
        logind.emitSignal(
            path: Self.path, interface: Self.interface, member: "PrepareForSleep", arguments: [.boolean(false)])
        let awake = await log.wait { $0.contains { if case .resumed = $0 { true } else { false } } }
        #expect(awake != nil)
        #expect(session.state == .connected)
        #expect(log.kinds == ["suspended", "resuming", "resumed"], "\(log.kinds)")

        monitor.close()
        await manager.endSession()
        await emulator.stop()
        await daemon.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func aBusThatCannotBeReachedIsATypedError() {
        let manager = SessionManager(options: CastOptions(sessionStore: nil))
        let error = #expect(throws: SystemSleepError.self) {
            try SystemSleepMonitor(sessionManager: manager, busAddress: "unix:path=/nonexistent/system_bus_socket")
        }
        #expect(error?.code == .busUnavailable)
    }
}

/// Every session event, kept in order, with waiting for them.
private final class EventRecorder: Sendable {
    private let events = NIOLockedValueBox<[SessionEvent]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<SessionEvent>) {
        let events = self.events
        self.task = Task { for await event in stream { events.withLockedValue { $0.append(event) } } }
    }

    deinit { self.task.cancel() }

    /// The events' kinds: "suspended", "resuming", "resumed", … — after the
    /// session's start, which a new listener may get first.
    var kinds: [String] {
        self.events.withLockedValue { $0 }.map { event in
            switch event {
            case .starting: "starting"
            case .started: "started"
            case .failedToStart: "failedToStart"
            case .suspended: "suspended"
            case .resuming: "resuming"
            case .resumed: "resumed"
            case .ending: "ending"
            case .ended: "ended"
            }
        }.filter { $0 != "starting" && $0 != "started" }
    }

    /// Waits (at most 10 s) until the events so far satisfy `predicate`; returns them.
    func wait(until predicate: ([SessionEvent]) -> Bool) async -> [SessionEvent]? {
        let found = try? await waitUntil(within: .seconds(10)) { predicate(self.events.withLockedValue { $0 }) }
        return found == true ? self.events.withLockedValue { $0 } : nil
    }
}
