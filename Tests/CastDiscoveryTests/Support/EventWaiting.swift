@_spi(Receiver) import CastDiscovery
import CastLogging
import NIOConcurrencyHelpers

/// A logger that keeps tests quiet.
let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .error))

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(self.what)" }
}

/// Records every event of a discovery stream as it comes, so a test can wait
/// for one event after another without giving up the stream.
final class EventLog: Sendable {
    private struct State {
        var events: [DiscoveryEvent] = []
        var cursor = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Starts recording; the recording ends with the stream, when its manager is released.
    init(_ stream: AsyncStream<DiscoveryEvent>) {
        let state = self.state
        Task {
            for await event in stream { state.withLockedValue { $0.events.append(event) } }
        }
    }

    /// Every event so far.
    var events: [DiscoveryEvent] {
        self.state.withLockedValue { $0.events }
    }

    /// The first event after the previously returned one that satisfies `predicate`,
    /// waiting at most `timeout` for it.

    @discardableResult
    func next(
        _ what: String,
        within timeout: Duration = .seconds(15),
        where predicate: (DiscoveryEvent) -> Bool
    ) async throws -> DiscoveryEvent {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let match: DiscoveryEvent? = self.state.withLockedValue { state in
                guard let index = state.events[state.cursor...].firstIndex(where: predicate) else { return nil }
                state.cursor = index + 1
                return state.events[index]
            }
            if let match { return match }
            guard clock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension EventLog {
    /// The device of the next `found` event.
    ///
    /// Tests call this rather than `#require(try await log.next(...) { ... }.found)`:
    /// with Swift 6.3, a trailing closure inside `#require` was run again in
    /// place of the next call's predicate.
    @discardableResult
    func nextFound(within timeout: Duration = .seconds(15)) async throws -> CastDevice {
        let event = try await self.next("found", within: timeout) { $0.found != nil }
        guard case .found(let device) = event else { throw TimedOut(what: "found") }
        return device
    }
}

extension DiscoveryEvent {
    /// The found device, if this is `found`.
    var found: CastDevice? {
        if case .found(let device) = self { device } else { nil }
    }

    /// The loss reason, if this is `lost`.
    var lossReason: LossReason? {
        if case .lost(_, let reason) = self { reason } else { nil }
    }

    /// The changes, if this is `updated`.
    var changes: CastDevice.Changes? {
        if case .updated(_, let changes) = self { changes } else { nil }
    }
}
