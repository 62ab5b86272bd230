import NIOConcurrencyHelpers

/// A clock that moves only when a test advances it: timeouts, back-off
/// and expiry are tested at virtual time, at exact instants, in
/// microseconds of wall time, however busy the machine.
///
/// Code under test sleeps on it as on `ContinuousClock`; the test waits
/// until that code is asleep (``sleeper(until:)``, ``sleepers(atLeast:)``), then ``advance(by:)``
/// wakes every sleeper whose deadline has come, in deadline order.
public final class ManualClock: Clock, Sendable {
    /// A point on the clock: the time advanced since it was made.
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock's start.
        public var offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: self.offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - self.offset }
        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        /// Tests waiting until the sleepers' deadlines satisfy a condition.
        var watchers: [(condition: @Sendable ([Instant]) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
            []

        /// Removes and returns the watchers whose condition now holds.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let deadlines = self.sleepers.values.map(\.deadline)
            let ready = self.watchers.filter { $0.condition(deadlines) }.map(\.continuation)
            self.watchers.removeAll { $0.condition(deadlines) }
            return ready
        }
    }

    private let state = NIOLockedValueBox(State())

    /// A clock at its start.
    public init() {}

    /// Now, as far as the clock has been advanced.
    public var now: Instant { self.state.withLockedValue { $0.now } }

    /// Virtual time has no resolution limit.
    public var minimumResolution: Duration { .zero }

    /// Suspends until the clock has been advanced to `deadline`; throws
    /// `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id: Int? = self.state.withLockedValue { state in
            guard deadline > state.now else { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else {
            try Task.checkCancellation()
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: (cancelled: Bool, watchers: [CheckedContinuation<Void, Never>]) =
                    self.state.withLockedValue { state in
                        if state.cancelled.remove(id) != nil { return (true, []) }
                        state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                        return (false, state.satisfiedWatchers())
                    }
                if outcome.cancelled { continuation.resume(throwing: CancellationError()) }
                for watcher in outcome.watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper: Sleeper? = self.state.withLockedValue { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` tasks sleep on the clock.
    public func sleepers(atLeast count: Int) async {
        await self.waitUntilSleepers { $0.count >= count }
    }

    /// Returns once a task sleeps until exactly `deadline`: the timer a
    /// test expects has been armed, whatever else sleeps on the clock.
    public func sleeper(until deadline: Instant) async {
        await self.waitUntilSleepers { $0.contains(deadline) }
    }

    /// Returns once the deadlines of the tasks asleep satisfy `condition`.
    public func waitUntilSleepers(_ condition: @escaping @Sendable ([Instant]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = self.state.withLockedValue { state in
                guard !condition(state.sleepers.values.map(\.deadline)) else { return true }
                state.watchers.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose
    /// deadline is now due, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = self.state.withLockedValue { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
