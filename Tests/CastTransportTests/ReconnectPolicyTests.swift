import CastTestSupport
import Testing

@testable import CastTransport

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
