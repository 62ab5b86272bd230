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

    private static let thisProcess = TurnGate()
    private static let childProcesses = TurnGate()

    /// Runs `body` once no other real-time test of `lane` runs, then prints
    /// how long the test waited for its turn and held it: each lane's turns
    /// add up to the floor of the suite's wall time, and CI's log shows
    /// which test holds the most.
    public static func take<Result: Sendable>(
        _ lane: Lane, _ body: () async throws -> Result
    ) async throws -> Result {
        // Entered in one order (this process, then child processes), so two tests
        // that each wait for both never hold one each.
        let gates: [TurnGate] =
            switch lane {
            case .thisProcess: [Self.thisProcess]
            case .childProcesses: [Self.childProcesses]
            case .wholeMachine: [Self.thisProcess, Self.childProcesses]
            }
        let clock = ContinuousClock()
        let asked = clock.now
        for gate in gates { await gate.enter() }
        let started = clock.now
        defer {
            let name = Test.current.map { "\($0.id)" } ?? "a real-time test"
            print(
                "real-time turn (\(lane)): \(name) waited \(Self.seconds(started - asked)), held \(Self.seconds(clock.now - started))"
            )
        }
        do {
            let result = try await body()
            for gate in gates.reversed() { await gate.leave() }
            return result
        } catch {
            for gate in gates.reversed() { await gate.leave() }
            throw error
        }
    }

    /// `duration` in seconds with one decimal, "12.3 s".
    private static func seconds(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10 + duration.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

/// A first-come, first-served async mutex.
private actor TurnGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard self.busy else {
            self.busy = true
            return
        }
        await withCheckedContinuation { self.waiting.append($0) }
    }

    func leave() {
        if self.waiting.isEmpty {
            self.busy = false
        } else {
            self.waiting.removeFirst().resume()
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
