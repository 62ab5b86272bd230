import NIOConcurrencyHelpers
public import Testing

/// A clock that moves only when a test advances it: timeouts, back-off
/// and expiry are tested at virtual time, at exact instants, in
/// microseconds of wall time, however busy the machine.
///
/// Code under test sleeps on it as on `ContinuousClock`; the test waits
/// until that code is asleep (``sleeper(until:within:sourceLocation:)``,
/// ``sleepers(atLeast:within:sourceLocation:)``), then ``advance(by:)``
/// wakes every sleeper whose deadline has come, in deadline order. A wait
/// for sleepers ends after a deadline in real time, failing the test with
/// what does sleep: code that fails before it arms the timer a test waits
/// for would otherwise leave the test waiting until its time limit, with
/// nothing said.
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

    private struct Watcher {
        let condition: @Sendable ([Instant]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        /// Tests waiting until the sleepers' deadlines satisfy a condition, by id.
        var watchers: [Int: Watcher] = [:]
        /// Waits whose time ran out before they were registered.
        var expired: Set<Int> = []

        /// Removes and returns the watchers whose condition now holds.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Bool, Never>] {
            let deadlines = self.sleepers.values.map(\.deadline)
            let ready = self.watchers.filter { $0.value.condition(deadlines) }
            for id in ready.keys { self.watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state = NIOLockedValueBox(State())

    /// A clock at its start.
    public init() {}

    /// Now, as far as the clock has been advanced.
    public var now: Instant { self.state.withLockedValue { $0.now } }

    /// The deadlines of the tasks asleep on the clock now, earliest first.
    public var deadlines: [Duration] {
        self.state.withLockedValue { $0.sleepers.values.map(\.deadline.offset).sorted() }
    }

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
                let outcome: (cancelled: Bool, watchers: [CheckedContinuation<Bool, Never>]) =
                    self.state.withLockedValue { state in
                        if state.cancelled.remove(id) != nil { return (true, []) }
                        state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                        return (false, state.satisfiedWatchers())
                    }
                if outcome.cancelled { continuation.resume(throwing: CancellationError()) }
                for watcher in outcome.watchers { watcher.resume(returning: true) }
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

    /// Returns once at least `count` tasks sleep on the clock; `false`,
    /// with an issue recorded, when fewer do after `timeout` in real time.
    @discardableResult
    public func sleepers(
        atLeast count: Int, within timeout: Duration = ManualClock.patience,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        await self.waitUntilSleepers(
            "\(count) sleepers", within: timeout, sourceLocation: sourceLocation
        ) { $0.count >= count }
    }

    /// Returns once a task sleeps until exactly `deadline`: the timer a
    /// test expects has been armed, whatever else sleeps on the clock;
    /// `false`, with an issue recorded, when none does after `timeout` in real time.
    @discardableResult
    public func sleeper(
        until deadline: Instant, within timeout: Duration = ManualClock.patience,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        await self.waitUntilSleepers(
            "a sleeper until \(deadline.offset)", within: timeout, sourceLocation: sourceLocation
        ) { $0.contains(deadline) }
    }

    /// How long a test waits in real time for code to fall asleep: arming a
    /// timer takes milliseconds, even in a ThreadSanitizer build on a busy machine.
    public static let patience = Duration.seconds(60)

    /// Returns once the deadlines of the tasks asleep satisfy `condition`;
    /// `false`, with an issue naming `expected` and the deadlines asleep,
    /// when they do not after `timeout` in real time.
    @discardableResult
    public func waitUntilSleepers(
        _ expected: String = "sleepers", within timeout: Duration = ManualClock.patience,
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable ([Instant]) -> Bool
    ) async -> Bool {
        let id = self.state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let expiry = Task {
            try await Task.sleep(for: timeout)
            let watcher = self.state.withLockedValue { state in
                guard let watcher = state.watchers.removeValue(forKey: id) else {
                    state.expired.insert(id)
                    return nil as Watcher?
                }
                return watcher
            }
            watcher?.continuation.resume(returning: false)
        }
        defer { expiry.cancel() }
        let satisfied = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ready: Bool? = self.state.withLockedValue { state in
                if state.expired.remove(id) != nil { return false }
                guard !condition(state.sleepers.values.map(\.deadline)) else { return true }
                state.watchers[id] = Watcher(condition: condition, continuation: continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        if !satisfied {
            let asleep = self.state.withLockedValue { $0.sleepers.values.map(\.deadline.offset).sorted() }
            Issue.record(
                "waited \(timeout) for \(expected) on the manual clock; asleep until: \(asleep)",
                sourceLocation: sourceLocation)
        }
        return satisfied
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
