import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// A custom receiver app with an echo namespace, for channel round trips.
let echoNamespace = "urn:x-cast:com.example.echo"
let echoApplication = EmulatedApplication(appID: "ABCD1234", displayName: "Echo", namespaces: [echoNamespace])

/// Quick reconnection for tests: 100 ms, growing to 1 s, many attempts.
let quickReconnect = ReconnectPolicy(
    initialDelay: .milliseconds(100), multiplier: 1.5, maximumDelay: .seconds(1), jitter: 0.2, maximumAttempts: 40)

/// Every session event a manager reports, kept in order, with waiting by label.
final class SessionEventLog: Sendable {
    private let events = NIOLockedValueBox<[SessionEvent]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<SessionEvent>) {
        let events = self.events
        self.task = Task {
            for await event in stream {
                events.withLockedValue { $0.append(event) }
            }
        }
    }

    deinit { self.task.cancel() }

    /// The labels of every event so far.
    var labels: [String] { self.events.withLockedValue { $0.map(\.label) } }

    /// The labels of every event up to and including the `occurrence`-th
    /// labelled `label`, once it has been seen (waiting at most `timeout`).
    func labels(through label: String, occurrence: Int = 1, within timeout: Duration = .seconds(15)) async -> [String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let labels = self.labels
            let ends = labels.indices.filter { labels[$0] == label }
            if ends.count >= occurrence { return Array(labels[...ends[occurrence - 1]]) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.labels
    }

    /// Waits until an event labelled `label` has been seen (at most `timeout`); returns it.
    @discardableResult
    func wait(for label: String, within timeout: Duration = .seconds(15)) async -> SessionEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = self.events.withLockedValue({ $0.first { $0.label == label } }) { return event }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

extension SessionEvent {
    /// A short name for asserting sequences: `started`, `suspended(heartbeat)`, `ended(applicationStopped)`…
    var label: String {
        switch self {
        case .starting: "starting"
        case .started: "started"
        case .failedToStart(_, let error): "failedToStart(\(error.code))"
        case .suspended(_, .heartbeatTimedOut): "suspended(heartbeat)"
        case .suspended(_, .connectionLost): "suspended(connectionLost)"
        case .suspended(_, .applicationMoved): "suspended(applicationMoved)"
        case .suspended(_, .systemSleep): "suspended(systemSleep)"
        case .resuming: "resuming"
        case .resumed: "resumed"
        case .ending: "ending"
        case .ended(_, .requested): "ended(requested)"
        case .ended(_, .applicationStopped): "ended(applicationStopped)"
        case .ended(_, .reconnectFailed): "ended(reconnectFailed)"
        case .ended(_, .replaced): "ended(replaced)"
        }
    }
}

/// A started emulator and a session manager that knows it as a known host
/// on 127.0.0.1, and reaches it in memory.
struct SessionFixture {
    let emulator: CastEmulator
    let discovery: DiscoveryManager
    let manager: SessionManager
    let device: CastDevice
    let log: SessionEventLog

    static func options(
        applicationID: String = CastApplicationID.defaultMediaReceiver,
        reconnect: ReconnectPolicy = quickReconnect,
        heartbeat: HeartbeatConfiguration = HeartbeatConfiguration(),
        launchTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(5),
        store: (any SessionStore)? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> CastOptions {
        CastOptions(
            receiverApplicationID: applicationID,
            // No device authentication unless a test is about it (`authenticating`).
            connection: CastConnectionConfiguration(heartbeat: heartbeat, deviceAuthentication: .off),
            reconnectPolicy: reconnect,
            requestTimeout: requestTimeout,
            launchTimeout: launchTimeout,
            sessionStore: store,
            logger: quietLogger,
            clock: clock
        )
    }

    /// Runs `body` with a started emulator and a manager; ends the session and stops the emulator afterwards.
    static func with(
        _ options: CastOptions = SessionFixture.options(),
        emulator configuration: CastEmulatorConfiguration = CastEmulatorConfiguration(
            applications: EmulatedApplication.standard + [echoApplication]),
        authenticating: Bool = false,
        _ body: (SessionFixture) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(configuration: configuration, logger: quietLogger)
        try await emulator.start()
        // Sessions authenticate the emulator when asked (`authenticating`): chain checks cost
        // CPU in debug builds, so the suites that are not about them leave them out.
        var options = options
        if authenticating { options.deviceAuthentication = .required(trusting: [emulator.trustAnchor]) }
        // Sessions reach this emulator in memory; any other device (a test's second emulator) over 127.0.0.1.
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        let discovery = DiscoveryManager(configuration: options.discovery, logger: quietLogger)
        let device = await discovery.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: emulator.port, friendlyName: configuration.name)
        let manager = SessionManager(options: options, discoveryManager: discovery)
        let fixture = SessionFixture(
            emulator: emulator, discovery: discovery, manager: manager, device: device,
            log: SessionEventLog(manager.events()))
        let result: Result<Void, any Error>
        do {
            try await body(fixture)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await manager.endSession()
        await emulator.stop()
        try result.get()
    }

    /// Makes the emulator echo the echo namespace: text as "echo:<text>", binary reversed.
    func echo(on emulator: CastEmulator? = nil) {
        (emulator ?? self.emulator).respond(to: echoNamespace, with: echoReplies(to:))
    }
}

/// Sends `text` on `channel` and returns the first message back, waiting at
/// most 30 s: a deadline that only fails the test (under ThreadSanitizer, with
/// the child processes' lane busy, a reply after a resumed session once took
/// longer than the 10 s default).
func roundTrip(_ channel: CastChannel, _ text: String) async throws -> CastMessage.Payload? {
    let messages = channel.messages()
    try await channel.sendTextMessage(text)
    return await first(messages, within: .seconds(30)) { _ in true }
}

/// A fresh file path for a session store.
func temporaryStoreURL() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cast-session-\(UUID().uuidString).json")
}
