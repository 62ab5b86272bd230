public import Testing

/// Tests that run in real time (Remote Display streaming, the `cast` demo,
/// third-party senders with their own timeouts) take turns across every
/// suite and test target of the process, one per lane: two streams of the
/// same kind at once would see each other's threads and share what they
/// measure.
///
/// There are two lanes. A stream sent from this process (its encoder and
/// network threads, which ``senderThreadsEnded(within:)`` checks) takes
/// ``Lane/thisProcess``; a test whose sender is a program it starts (`cast`,
/// pychromecast) or that only drives a display server takes
/// ``Lane/childProcesses``. A test of each lane runs at once: the whole
/// suite uses about a third of one core (61 s of CPU in a 190 s test phase
/// with one lane), so two streams leave plenty for both. Under a sanitizer
/// (5–15 times slower) too: there the lanes were one until Nov 2026, when
/// the run used about one core of two; two lanes, with four tests at a time
/// (`make tsan`), took a run from 393 s to 289 s, every test passing.
public enum RealTimeTurns {
    /// Which real-time tests a test takes turns with.
    public enum Lane: Sendable {
        /// The stream is sent from this process (a Remote Display or audio session).
        case thisProcess
        /// The sender is a program the test starts, or the test drives a display server.
        case childProcesses
        /// Both lanes at once: a stream whose assertions are timed against the
        /// network (the bitrate and size steps under a bandwidth cap), which
        /// another lane's CPU use would disturb (1 run in 20 with stress-ng).
        case wholeMachine
    }

    private static let turns = TurnScheduler()

    /// Runs `body` once no other real-time test of `lane` runs, then prints
    /// how long the test waited for its turn and held it: each lane's turns
    /// add up to the floor of the suite's wall time, and CI's log shows
    /// which test holds the most.
    public static func take<Result: Sendable>(
        _ lane: Lane, _ body: () async throws -> Result
    ) async throws -> Result {
        let gates: Set<TurnScheduler.Gate> =
            switch lane {
            case .thisProcess: [.thisProcess]
            case .childProcesses: [.childProcesses]
            case .wholeMachine: [.thisProcess, .childProcesses]
            }
        let clock = ContinuousClock()
        let asked = clock.now
        await Self.turns.enter(gates)
        let started = clock.now
        defer {
            let name = Test.current.map { "\($0.id)" } ?? "a real-time test"
            print(
                "real-time turn (\(lane)): \(name) waited \(Self.seconds(started - asked)), held \(Self.seconds(clock.now - started))"
            )
        }
        do {
            let result = try await body()
            await Self.turns.leave(gates)
            return result
        } catch {
            await Self.turns.leave(gates)
            throw error
        }
    }

    /// `duration` in seconds with one decimal, "12.3 s".
    private static func seconds(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10 + duration.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

/// The two lanes' turns, first come first served in each lane. A test
/// that needs both (``RealTimeTurns/Lane/wholeMachine``) takes them
/// together, when both are free, and holds neither while it waits: holding
/// one lane idle while it queued for the other's whole queue of tests kept
/// that lane idle for ~50 s of a 195 s test phase. So that single-lane
/// tests cannot starve it, once it has waited ``patience`` it holds back
/// the lanes it needs from the tests that asked after it.
private actor TurnScheduler {
    enum Gate: Hashable { case thisProcess, childProcesses }

    private struct Waiter {
        let gates: Set<Gate>
        let asked: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, Never>
    }

    /// How long a test for both lanes lets later single-lane tests pass it.
    static let patience: Duration = .seconds(20)
    private var busy: Set<Gate> = []
    private var waiting: [Waiter] = []

    func enter(_ gates: Set<Gate>) async {
        await withCheckedContinuation { continuation in
            self.waiting.append(Waiter(gates: gates, asked: .now, continuation: continuation))
            self.grant()
        }
    }

    func leave(_ gates: Set<Gate>) {
        self.busy.subtract(gates)
        self.grant()
    }

    /// Lets in, in the order asked, every waiter whose lanes are free and
    /// not held back for an earlier waiter.
    private func grant() {
        let now = ContinuousClock.now
        var heldBack: Set<Gate> = []
        var index = 0
        while index < self.waiting.count {
            let waiter = self.waiting[index]
            if waiter.gates.isDisjoint(with: heldBack), waiter.gates.isDisjoint(with: self.busy) {
                self.busy.formUnion(waiter.gates)
                self.waiting.remove(at: index)
                waiter.continuation.resume()
                continue
            }
            // A single lane's order is kept; a waiter for both holds lanes back once it waited long.
            if waiter.gates.count == 1 || now - waiter.asked > Self.patience { heldBack.formUnion(waiter.gates) }
            index += 1
        }
    }
}

/// Has each test of a suite (or one test) take a real-time turn in
/// `lane`, as if its body were in ``RealTimeTurns/take(_:_:)``: for tests
/// whose programs take a core (ffmpeg converting), which beside a
/// real-time test starve it (a screen-capture test decoded 56 of its 60
/// pictures beside the HLS conversion tests on a fresh clone's CI).
public struct TakesTurn: TestTrait, SuiteTrait, TestScoping {
    /// The lane its tests take.
    public let lane: RealTimeTurns.Lane

    public var isRecursive: Bool { true }

    /// Each case of each test takes the turn; never the suite around them, which would hold it
    /// while its tests wait for it.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> TakesTurn? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await RealTimeTurns.take(self.lane) { try await function() }
    }
}

extension Trait where Self == TakesTurn {
    /// Each test takes a turn in `lane` (``TakesTurn``).
    public static func takesTurn(_ lane: RealTimeTurns.Lane) -> Self { TakesTurn(lane: lane) }
}
