/// Runs `body` and keeps its outcome, so cleanup can run before the error is rethrown.
public func outcome(of body: () async throws -> Void) async -> Result<Void, any Error> {
    do {
        try await body()
        return .success(())
    } catch {
        return .failure(error)
    }
}
