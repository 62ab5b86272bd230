import CastTransport

/// The first element of `stream` that satisfies `predicate`, waiting at
/// most `timeout`; `nil` if the stream ends or the time runs out first.
public func first<Element: Sendable>(
    _ stream: AsyncStream<Element>,
    within timeout: Duration = .seconds(10),
    where predicate: @escaping @Sendable (Element) -> Bool
) async -> Element? {
    let matching = AsyncStream<Element> { continuation in
        let task = Task {
            for await element in stream where predicate(element) {
                continuation.yield(element)
                break
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }
    if case .element(let element) = await firstElement(of: matching, within: timeout) {
        return element
    }
    return nil
}
