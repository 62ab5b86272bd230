/// Runs `body` until it succeeds, at most `attempts` times, `interval`
/// apart; the last failure is thrown. For steps that wait on the system,
/// such as a responder that picks interfaces while a fresh veth end comes up.
public func retrying<Result>(
    attempts: Int = 50, every interval: Duration = .milliseconds(50), _ body: () async throws -> Result
) async throws -> Result {
    for _ in 1..<max(attempts, 1) {
        do {
            return try await body()
        } catch {
            try await Task.sleep(for: interval)
        }
    }
    return try await body()
}
