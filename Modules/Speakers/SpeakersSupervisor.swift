public import CastDiscovery
public import CastLogging
public import CastTransport
import NIOConcurrencyHelpers

/// Cast speakers that outlive their sound server, as `cast speakers` and a
/// user service run them: ``CastSpeakers`` following a discovery manager's
/// devices and, whenever the sound server goes away (a restart, a crash, a
/// logout of another session), a wait for it to come back — asked after
/// 0.5 s, then twice as long each time up to 5 s — and the sinks made
/// again. Discovery goes on meanwhile: each run starts with the devices
/// present then.
///
/// ```swift
/// let speakers = try CastSpeakers(configuration: configuration)
/// let supervisor = SpeakersSupervisor(speakers)
/// try await supervisor.run(following: discovery) { print($0) }
/// ```
public final class SpeakersSupervisor: Sendable {
    /// What the supervisor tells.
    public enum Event: Sendable, CustomStringConvertible {
        /// What the speakers running now do.
        case speakers(CastSpeakersEvent)
        /// The sound server went away; the supervisor waits for it.
        case soundServerLost(SpeakersError)
        /// The sound server answers again: the sinks are being made again.
        case soundServerBack

        /// One line for people.
        public var description: String {
            switch self {
            case .speakers(let event): "\(event)"
            case .soundServerLost(let error): "\(error); waiting for it to come back"
            case .soundServerBack: "the sound server is back: making the sinks again"
            }
        }
    }

    /// How often the sound server is asked for while it is away.
    public static let retryPolicy = ReconnectPolicy(
        initialDelay: .milliseconds(500), maximumDelay: .seconds(5), jitter: 0, maximumAttempts: nil)

    private let running: NIOLockedValueBox<CastSpeakers>
    private let logger: CastLogger
    private let clock: any Clock<Duration>

    /// Supervises `speakers`; `clock` times the waits for the sound server
    /// (tests pass one they advance).
    public init(_ speakers: CastSpeakers, logger: CastLogger = .shared, clock: any Clock<Duration> = ContinuousClock())
    {
        self.running = NIOLockedValueBox(speakers)
        self.logger = logger
        self.clock = clock
    }

    /// The speakers running now: new ones once the sound server came back.
    /// Reconfigure these (``CastSpeakers/reconfigure(_:)``) to change the settings.
    public var speakers: CastSpeakers { self.running.withLockedValue { $0 } }

    /// Runs the speakers, following `discovery`'s devices, until cancelled
    /// (then the sinks are removed and it returns) or a failure other than
    /// the sound server going away.
    ///
    /// - Throws: what ``CastSpeakers/run(following:)`` throws, but for a
    ///   sound server that went away; `CancellationError` when cancelled
    ///   while the sound server is away.
    public func run(following discovery: DiscoveryManager, events: @escaping @Sendable (Event) -> Void)
        async throws
    {
        var speakers = self.speakers
        while true {
            self.running.withLockedValue { $0 = speakers }
            let told = speakers.events()
            let telling = Task {
                for await event in told { events(.speakers(event)) }
            }
            do {
                try await speakers.run(following: Self.devicesAndChanges(of: discovery))
                telling.cancel()
                return
            } catch {
                telling.cancel()
                guard error.code == .soundServerUnavailable, !Task.isCancelled else { throw error }
                events(.soundServerLost(error))
            }
            speakers = try await self.soundServerBack(configuration: speakers.configuration)
            events(.soundServerBack)
        }
    }

    /// A ``CastSpeakers`` once the sound server answers again, asked as ``retryPolicy`` says.
    func soundServerBack(configuration: CastSpeakersConfiguration) async throws -> CastSpeakers {
        var attempt = 0
        while true {
            attempt += 1
            try await self.clock.sleep(for: Self.retryPolicy.delay(beforeAttempt: attempt) ?? .seconds(5))
            do {
                return try CastSpeakers(configuration: configuration, logger: self.logger)
            } catch {
                guard error.code == .soundServerUnavailable else { throw error }
            }
        }
    }

    /// The devices `discovery` lists now, as found, then what it reports.
    static func devicesAndChanges(of discovery: DiscoveryManager) -> AsyncStream<DiscoveryEvent> {
        // Subscribed before the list is read: a device that comes between is reported twice, not lost.
        let events = discovery.events()
        let present = discovery.devices
        return AsyncStream { continuation in
            for device in present { continuation.yield(.found(device)) }
            let forwarding = Task {
                for await event in events { continuation.yield(event) }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarding.cancel() }
        }
    }
}
