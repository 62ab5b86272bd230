import CastTestSupport
import NIOConcurrencyHelpers
import Testing

@_spi(Receiver) @testable import CastTransport

@Suite(.timeLimit(.minutes(3))) struct ReconnectPolicyTests {
    @Test func growsExponentiallyUpToTheCapWithoutJitter() {
        let policy = ReconnectPolicy(
            initialDelay: .seconds(1),
            multiplier: 2,
            maximumDelay: .seconds(30),
            jitter: 0,
            maximumAttempts: 8
        )
        var generator = SplitMix64(seed: 1)
        let delays = (1...9).map { policy.delay(beforeAttempt: $0, using: &generator) }
        #expect(delays == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) } + [nil])
        #expect(policy.delay(beforeAttempt: 0, using: &generator) == nil)
    }

    @Test func jitterStaysWithinItsFractionAndVaries() {
        let policy = ReconnectPolicy(initialDelay: .seconds(10), maximumDelay: .seconds(10), jitter: 0.5)
        var generator = SplitMix64(seed: 2)
        let delays = (0..<200).compactMap { _ in policy.delay(beforeAttempt: 1, using: &generator) }
        #expect(delays.count == 200)
        #expect(delays.allSatisfy { $0 >= .seconds(5) && $0 <= .seconds(15) })
        #expect(Set(delays).count > 100)
    }

    @Test func unlimitedAttemptsNeverGiveUpAndNeverOverflow() {
        let policy = ReconnectPolicy(jitter: 0, maximumAttempts: nil)
        var generator = SplitMix64(seed: 3)
        #expect(policy.delay(beforeAttempt: 10_000, using: &generator) == .seconds(30))
        #expect(ReconnectPolicy.never.delay(beforeAttempt: 1, using: &generator) == nil)
    }
}

/// The one retry loop (``ReconnectPolicy/retry(on:immediately:retryingWhen:attempt:)``), at virtual time.
@Suite(.timeLimit(.minutes(1))) struct ReconnectPolicyRetryTests {
    struct Refused: Error {}
    struct Gone: Error {}

    private static let policy = ReconnectPolicy(
        initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0, maximumAttempts: 4)

    /// Two refusals, then an answer: the waits are the policy's (1 s, 2 s, 4 s) and nothing runs early.
    @Test func attemptsWaitThePolicysDelaysUntilOneSucceeds() async throws {
        let clock = ManualClock()
        let attempts = NIOLockedValueBox<[Duration]>([])
        let retrying = Task {
            try await Self.policy.retry(on: clock) { number in
                attempts.withLockedValue { $0.append(clock.now.offset) }
                if number < 3 { throw Refused() }
                return number
            }
        }
        for wait in [1, 2, 4] {
            await clock.sleeper(until: clock.now.advanced(by: .seconds(wait)))
            clock.advance(by: .seconds(wait))
        }
        #expect(try await retrying.value == 3)
        #expect(attempts.withLockedValue { $0 } == [.seconds(1), .seconds(3), .seconds(7)])
    }

    @Test func anErrorThatIsNotRetryableEndsTheLoopAtOnce() async {
        let clock = ManualClock()
        let count = NIOLockedValueBox(0)
        await #expect(throws: Gone.self) {
            try await Self.policy.retry(
                on: clock, immediately: true, retryingWhen: { $0 is Refused },
                attempt: { _ in
                    count.withLockedValue { $0 += 1 }
                    throw Gone()
                })
        }
        #expect(count.withLockedValue { $0 } == 1)
    }

    /// Attempts run out: the last error comes back, after as many attempts
    /// as the policy allows (the first at once, then after 2, 4 and 8 s).
    @Test func theLastErrorComesBackWhenTheAttemptsRunOut() async {
        let clock = ManualClock()
        let count = NIOLockedValueBox(0)
        let retrying = Task {
            try await Self.policy.retry(on: clock, immediately: true) { (_: Int) -> Int in
                count.withLockedValue { $0 += 1 }
                throw Refused()
            }
        }
        for wait in [2, 4, 8] {
            await clock.sleeper(until: clock.now.advanced(by: .seconds(wait)))
            clock.advance(by: .seconds(wait))
        }
        await #expect(throws: Refused.self) { try await retrying.value }
        #expect(count.withLockedValue { $0 } == 4)
    }

    @Test func cancellingWhileWaitingEndsTheLoopWithoutAnotherAttempt() async {
        let clock = ManualClock()
        let count = NIOLockedValueBox(0)
        let retrying = Task {
            try await Self.policy.retry(on: clock) { (_: Int) -> Int in
                count.withLockedValue { $0 += 1 }
                throw Refused()
            }
        }
        await clock.sleepers(atLeast: 1)
        retrying.cancel()
        await #expect(throws: CancellationError.self) { try await retrying.value }
        #expect(count.withLockedValue { $0 } == 0)
    }
}
