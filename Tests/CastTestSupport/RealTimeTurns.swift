import Testing

/// Tests that run in real time on most of the machine (Remote Display
/// streaming, the `cast` demo, third-party senders with their own timeouts)
/// take turns across every suite and test target of the process: on a
/// 2-core machine two of them at once starve each other, and what they
/// measure stops meaning anything.
public enum RealTimeTurns {
    private static let gate = TurnGate()

    /// Runs `body` once no other real-time test runs, then prints how long
    /// the test waited for its turn and held it: the turns add up to the
    /// floor of the suite's wall time, and CI's log shows which test holds
    /// the most.
    public static func take<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        let clock = ContinuousClock()
        let asked = clock.now
        await Self.gate.enter()
        let started = clock.now
        defer {
            let name = Test.current.map { "\($0.id)" } ?? "a real-time test"
            print(
                "real-time turn: \(name) waited \(Self.seconds(started - asked)), held \(Self.seconds(clock.now - started))"
            )
        }
        do {
            let result = try await body()
            await Self.gate.leave()
            return result
        } catch {
            await Self.gate.leave()
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
