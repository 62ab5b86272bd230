import NIOConcurrencyHelpers

/// Fans events out to any number of listeners, each through its own
/// `AsyncStream`, so every listener sees every event. A new listener first
/// receives the latest event (a connection's current state), then what
/// follows — unless made with `replaysLatest: false`, for streams of
/// messages rather than states.
///
/// Every module's observable streams are made with it: a connection's
/// states, a channel's messages, a session's events, a model's states.
///
/// ```swift
/// let states = EventBroadcaster<String>(initial: "idle")
/// let listener = states.subscribe()   // gets "idle", then what follows
/// states.yield("connected")
/// states.finish()
/// ```
public final class EventBroadcaster<Element: Sendable>: Sendable {
    private struct State {
        var latest: Element?
        var continuations: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
    }

    private let state: NIOLockedValueBox<State>
    private let replaysLatest: Bool
    private let buffering: AsyncStream<Element>.Continuation.BufferingPolicy

    /// Creates a broadcaster whose new listeners start with `initial`, if
    /// given, or (when `replaysLatest`) with the latest event. `buffering`
    /// bounds what a listener that does not keep up holds: streams fed from
    /// the network pass a bound, so a slow listener cannot grow memory.
    public init(
        initial: Element?,
        replaysLatest: Bool = true,
        buffering: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded
    ) {
        self.state = NIOLockedValueBox(State(latest: initial))
        self.replaysLatest = replaysLatest
        self.buffering = buffering
    }

    /// A stream of the latest event and every later one, until ``finish(with:)``.
    public func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: self.buffering)
        let id: UInt64? = self.state.withLockedValue { state in
            if let latest = state.latest { continuation.yield(latest) }
            guard !state.isFinished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `event` to every listener.
    public func yield(_ event: Element) {
        let continuations = self.state.withLockedValue { state in
            if self.replaysLatest { state.latest = event }
            return Array(state.continuations.values)
        }
        for continuation in continuations {
            continuation.yield(event)
        }
    }

    /// Ends every stream after `event`, if given; later listeners get the latest event and an end.
    public func finish(with event: Element? = nil) {
        let continuations = self.state.withLockedValue { state in
            if let event { state.latest = event }
            state.isFinished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in continuations {
            if let event { continuation.yield(event) }
            continuation.finish()
        }
    }
}
