/// The one retry loop every sender path uses: a CastKit session coming
/// back, `cast audio` finding its speaker again.
extension ReconnectPolicy {
    /// Calls `attempt` (numbered from 1) until it returns, waiting the
    /// policy's delay on `clock` before each attempt — but the first when
    /// `immediately`.
    ///
    /// - Parameters:
    ///   - isolation: where `attempt` runs: the caller's actor.
    ///   - clock: where the waits run (tests pass a clock they advance).
    ///   - immediately: whether the first attempt runs without waiting.
    ///   - retryable: whether an attempt's error is worth another attempt;
    ///     one that is not ends the loop at once.
    ///   - attempt: one try, given its number.
    /// - Returns: what the first successful attempt returned.
    /// - Throws: the last attempt's error when it is not retryable or the
    ///   policy allows no more attempts; `CancellationError` when the task is
    ///   cancelled while waiting; ``CastTransportError/Code/connectionFailed``
    ///   when the policy allows no attempt at all.
    public func retry<Value>(
        isolation: isolated (any Actor)? = #isolation,
        on clock: any Clock<Duration>,
        immediately: Bool = false,
        retryingWhen retryable: (any Error) -> Bool = { _ in true },
        attempt: (Int) async throws -> Value
    ) async throws -> Value {
        var number = 1
        var lastError: (any Error)?
        while let delay = self.delay(beforeAttempt: number) {
            if !(immediately && number == 1) { try await clock.sleep(for: delay) }
            try Task.checkCancellation()
            do {
                return try await attempt(number)
            } catch {
                guard retryable(error) else { throw error }
                lastError = error
            }
            number += 1
        }
        throw lastError ?? CastTransportError(.connectionFailed, "the reconnect policy allows no attempt")
    }
}
