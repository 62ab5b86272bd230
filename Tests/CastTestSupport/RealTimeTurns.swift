/// Tests that run in real time on most of the machine (Remote Display
/// streaming, the `cast` demo, third-party senders with their own timeouts)
/// take turns across every suite and test target of the process: on a
/// 2-core machine two of them at once starve each other, and what they
/// measure stops meaning anything.
public enum RealTimeTurns {
    private static let gate = TurnGate()

    /// Runs `body` once no other real-time test runs.
    public static func take<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        await Self.gate.enter()
        do {
            let result = try await body()
            await Self.gate.leave()
            return result
        } catch {
            await Self.gate.leave()
            throw error
        }
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
