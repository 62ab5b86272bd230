@_spi(Receiver) import CastTransport
import NIOConcurrencyHelpers

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

/// The values `transform` finds in `stream`, in order, until there are
/// `count` of them or `timeout` passes — whichever is first, so a test that
/// expects events fails instead of hanging when they do not come.
public func collect<Element: Sendable, Value: Sendable>(
    _ stream: AsyncStream<Element>,
    count: Int,
    within timeout: Duration = .seconds(10),
    _ transform: @escaping @Sendable (Element) -> Value?
) async -> [Value] {
    let collected = NIOLockedValueBox<[Value]>([])
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await element in stream {
                guard let value = transform(element) else { continue }
                let done = collected.withLockedValue { values in
                    values.append(value)
                    return values.count >= count
                }
                if done { return }
            }
        }
        group.addTask { try? await Task.sleep(for: timeout) }
        await group.next()
        group.cancelAll()
    }
    return collected.withLockedValue { $0 }
}

/// The error `body` throws if it is a `Failure`; `nil` if it throws nothing (or something else).
public func caughtError<Failure: Error>(_ type: Failure.Type, _ body: () async throws -> Void) async -> Failure? {
    do {
        try await body()
        return nil
    } catch let error as Failure {
        return error
    } catch {
        return nil
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes;
/// whether it held.
public func waitUntil(within timeout: Duration, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
