/// How waiting for the first element of a stream ended.
package enum FirstElement<Element: Sendable>: Sendable {
    /// An element arrived.
    case element(Element)
    /// The stream ended first.
    case finished
    /// The time ran out first.
    case timedOut
}

/// Waits for the first element of `stream`, at most `timeout` on `clock`.
package func firstElement<Element: Sendable>(
    of stream: AsyncStream<Element>,
    within timeout: Duration,
    on clock: any Clock<Duration> = ContinuousClock()
) async -> FirstElement<Element> {
    await withTaskGroup(of: FirstElement<Element>.self) { group in
        group.addTask {
            for await element in stream {
                return .element(element)
            }
            return .finished
        }
        group.addTask {
            do {
                try await clock.sleep(for: timeout)
                return .timedOut
            } catch {
                return .finished
            }
        }
        let first = await group.next() ?? .finished
        group.cancelAll()
        return first
    }
}
