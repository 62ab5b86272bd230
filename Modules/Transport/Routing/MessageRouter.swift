import Logging
import NIOConcurrencyHelpers

/// Delivers inbound messages to every subscriber whose ``MessageFilter``
/// matches, each through its own `AsyncStream`.
///
/// Called on the event loop once per message; subscribing and finishing may
/// happen from anywhere. When the connection ends, every stream finishes.
final class MessageRouter: Sendable {
    private struct Subscriber {
        var filter: MessageFilter
        var continuation: AsyncStream<CastMessage>.Continuation
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let state = NIOLockedValueBox(State())
    private let bufferLimit: Int
    private let logger: Logger

    /// Creates a router whose subscribers each buffer at most `bufferLimit`
    /// unread messages; beyond that the newest are dropped and logged.
    init(bufferLimit: Int, logger: Logger) {
        self.bufferLimit = bufferLimit
        self.logger = logger
    }

    /// A stream of the messages matching `filter`, from now until the connection ends.
    func subscribe(_ filter: MessageFilter) -> AsyncStream<CastMessage> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CastMessage.self,
            bufferingPolicy: .bufferingOldest(self.bufferLimit)
        )
        let id: UInt64? = self.state.withLockedValue { state in
            guard !state.isFinished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(filter: filter, continuation: continuation)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `message` to every matching subscriber; returns how many took it.
    @discardableResult
    func route(_ message: CastMessage) -> Int {
        let targets = self.state.withLockedValue { state in
            state.subscribers.values.filter { $0.filter.matches(message) }.map(\.continuation)
        }
        var delivered = 0
        for continuation in targets {
            switch continuation.yield(message) {
            case .enqueued:
                delivered += 1
            case .dropped:
                self.logger.warning(
                    "a subscriber is not reading; dropping a message",
                    metadata: ["cast.namespace": "\(message.namespace)", "cast.buffer": "\(self.bufferLimit)"]
                )
            case .terminated:
                break
            @unknown default:
                break
            }
        }
        return delivered
    }

    /// Ends every stream; later subscriptions end at once.
    func finish() {
        let continuations = self.state.withLockedValue { state in
            state.isFinished = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in continuations {
            continuation.finish()
        }
    }
}
