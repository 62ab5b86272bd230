import CastCommon
public import CastLogging
public import CastTransport
public import Logging
import NIOConcurrencyHelpers

/// Whether a channel is attached to a live connection.
public enum CastChannelConnectionEvent: Sendable, Hashable {
    /// The channel was attached: sends go out, messages come in.
    case connected
    /// The channel was detached, or its connection ended.
    case disconnected
}

/// A channel for one namespace between this sender and one receiver
/// endpoint (an app's transport, or `receiver-0`): the SDK's `GCKCastChannel`.
///
/// Use it either way the SDK offers:
///
/// - **Subclass** and override ``didReceiveTextMessage(_:)``,
///   ``didReceiveBinaryMessage(_:)``, ``didConnect()`` and
///   ``didDisconnect()`` — for channels with state of their own.
/// - **Listen**: iterate ``messages()`` and ``connectionEvents()``, or use
///   ``GenericChannel`` with a delegate.
///
/// A session attaches its channels when it connects to an app that lists
/// their namespaces, and detaches them when it disconnects; a channel made
/// earlier connects when the session does. Without CastKit, attach one to a
/// `CastConnection` yourself with ``attach(to:destinationID:logger:)``.
///
/// Hooks run one at a time, in arrival order, on a background task; the
/// message streams see each message after the hook has run, and
/// ``connectionEvents()`` each change after ``didConnect()`` or
/// ``didDisconnect()`` has run.
///
/// Subclasses must be safe to share across tasks (the class is `Sendable`):
/// keep mutable state behind a lock, as the built-in channels do.
open class CastChannel: @unchecked Sendable {
    // @unchecked Sendable, because the compiler checks Sendable only for
    // final classes and this one is open for subclassing. It is safe: every
    // stored property is a `let` of a Sendable type — `namespace` (String),
    // `state` (NIOLockedValueBox: the link, its generation and logger change
    // only under its lock; a link holds an actor, a Task and a String), and
    // `inbound` / `connectivity` (EventBroadcaster, Sendable, with its own
    // lock). Subclasses must keep to the same rule.

    private struct Link {
        let connection: CastConnection
        let destinationID: String
        let generation: Int
        var pump: Task<Void, Never>?
    }

    private struct State {
        var link: Link?
        var generation = 0
        var logger: Logger
    }

    /// The most messages or events a listener that does not keep up is held
    /// for: message streams then drop the newest (like the connection's
    /// router), status streams the oldest (the latest status is what counts).
    public static let listenerBufferLimit = 1024

    /// The namespace, `urn:x-cast:…`.
    public let namespace: String
    private let state: NIOLockedValueBox<State>
    /// Messages wait in order for each listener; past ``listenerBufferLimit``, the newest are dropped.
    private let inbound = EventBroadcaster<CastMessage.Payload>(
        initial: nil, replaysLatest: false, buffering: .bufferingOldest(CastChannel.listenerBufferLimit))
    private let connectivity = EventBroadcaster<CastChannelConnectionEvent>(initial: .disconnected)

    /// Creates a channel for `namespace`.
    ///
    /// - Throws: ``CastChannelError/Code/invalidNamespace`` unless the
    ///   namespace starts with `urn:x-cast:` and has something after it.
    public init(namespace: String) throws(CastChannelError) {
        guard namespace.hasPrefix(CastNamespace.prefix), namespace.count > CastNamespace.prefix.count else {
            throw CastChannelError(.invalidNamespace, "\"\(namespace)\" does not start with \(CastNamespace.prefix)")
        }
        self.namespace = namespace
        self.state = NIOLockedValueBox(State(logger: Self.makeLogger(.shared, namespace: namespace)))
    }

    /// Creates a channel for one of the platform's namespaces, known to be valid.
    package init(platformNamespace namespace: String) {
        self.namespace = namespace
        self.state = NIOLockedValueBox(State(logger: Self.makeLogger(.shared, namespace: namespace)))
    }

    deinit {
        self.state.withLockedValue { $0.link?.pump?.cancel() }
    }

    // MARK: Hooks for subclasses

    /// Called with each text message from the endpoint. Does nothing unless overridden.
    open func didReceiveTextMessage(_ message: String) {}

    /// Called with each binary message from the endpoint. Does nothing unless overridden.
    open func didReceiveBinaryMessage(_ message: [UInt8]) {}

    /// Called when the channel is attached to a connection. Does nothing unless overridden.
    open func didConnect() {}

    /// Called when the channel is detached or its connection ends. Does nothing unless overridden.
    open func didDisconnect() {}

    // MARK: Observing

    /// Whether the channel is attached to a connection.
    public var isConnected: Bool {
        self.state.withLockedValue { $0.link != nil }
    }

    /// The connection the channel is attached to; `nil` while detached: the
    /// way back from a channel to its device (the SDK's `deviceManager`).
    public var connection: CastConnection? {
        self.state.withLockedValue { $0.link?.connection }
    }

    /// The endpoint the channel talks to (an app's transport id, or
    /// `receiver-0`); `nil` while detached.
    public var destinationID: String? {
        self.state.withLockedValue { $0.link?.destinationID }
    }

    /// A fresh `requestId` for a message the app builds itself (the SDK's
    /// `generateRequestID`): positive and unique among the connection's
    /// pending requests, every channel on it included; `nil` while detached
    /// (the SDK's invalid id). ``sendRequest(_:tracker:timeout:willSend:)``
    /// adds one by itself.
    public func generateRequestID() -> Int? {
        self.connection?.makeRequestID()
    }

    /// Every message received from now on, text or binary; each call gives a new, independent stream.
    public func messages() -> AsyncStream<CastMessage.Payload> {
        self.inbound.subscribe()
    }

    /// The current connectivity, then every change; each call gives a new, independent stream.
    public func connectionEvents() -> AsyncStream<CastChannelConnectionEvent> {
        self.connectivity.subscribe()
    }

    // MARK: Sending

    /// Sends a text message (usually JSON) to the endpoint.
    ///
    /// - Throws: ``CastChannelError/Code/notConnected``,
    ///   ``CastChannelError/Code/sendBufferFull`` or
    ///   ``CastChannelError/Code/invalidMessage`` (too large).
    public func sendTextMessage(_ message: String) async throws(CastChannelError) {
        let (connection, destinationID) = try self.requireLink()
        do {
            try await connection.send(namespace: self.namespace, to: destinationID, text: message)
        } catch {
            throw CastChannelError(sending: error)
        }
    }

    /// Sends a binary message to the endpoint.
    ///
    /// - Throws: as ``sendTextMessage(_:)``.
    public func sendBinaryMessage(_ message: [UInt8]) async throws(CastChannelError) {
        let (connection, destinationID) = try self.requireLink()
        do {
            try await connection.send(namespace: self.namespace, to: destinationID, bytes: message)
        } catch {
            throw CastChannelError(sending: error)
        }
    }

    /// Sends `payload` as a request: adds a fresh `requestId` from the
    /// connection (§5), sends it, and waits for the reply with that id,
    /// which the subclass hands to `tracker` from its receive hook.
    ///
    /// - Parameters:
    ///   - payload: the request's JSON object, without `requestId`.
    ///   - tracker: where the subclass's receive hook hands replies.
    ///   - timeout: how long to wait for the reply.
    ///   - willSend: called with the request's id just before it is
    ///     sent (a media client uses it to supersede an older load).
    /// - Throws: a send error, ``CastChannelError/Code/timedOut``,
    ///   ``CastChannelError/Code/cancelled``, ``CastChannelError/Code/disconnected``,
    ///   or whatever the reply means as an error.
    public func sendRequest<Reply: Sendable>(
        _ payload: [String: JSONValue],
        tracker: RequestTracker<Reply>,
        timeout: Duration,
        willSend: (Int) -> Void = { _ in }
    ) async throws(CastChannelError) -> Reply {
        let (connection, _) = try self.requireLink()
        let requestID = connection.makeRequestID()
        willSend(requestID)
        var body = payload
        body["requestId"] = .integer(requestID)
        let text = try JSONValue.object(body).jsonText()
        return try await tracker.perform(requestID: requestID, timeout: timeout) { () throws(CastChannelError) in
            try await self.sendTextMessage(text)
        }
    }

    /// The logger for this channel's diagnostics (malformed messages it drops).
    public var logger: Logger {
        self.state.withLockedValue { $0.logger }
    }

    // MARK: Attaching

    /// Attaches the channel to `connection`, talking to `destinationID` (an
    /// app's transport id, or `receiver-0`): from now on it receives that
    /// endpoint's messages in its namespace (and broadcasts) and can send.
    /// Attaching again first detaches. Opening the virtual connection to
    /// `destinationID` is the caller's job (a session does it).
    public func attach(to connection: CastConnection, destinationID: String, logger: CastLogger = .shared) {
        self.detach()
        let messages = connection.messages(
            namespace: self.namespace, from: destinationID, to: connection.senderID)
        let generation = self.state.withLockedValue { state in
            state.generation += 1
            state.link = Link(connection: connection, destinationID: destinationID, generation: state.generation)
            state.logger = Self.makeLogger(logger, namespace: self.namespace)
            return state.generation
        }
        // The hook first, then the listeners: whoever hears `.connected`
        // (or `.disconnected`, below) finds the subclass or delegate told.
        self.didConnect()
        self.connectivity.yield(.connected)
        let pump = Task { [weak self] in
            for await message in messages {
                guard let self else { return }
                self.deliver(message)
            }
            self?.linkEnded(generation: generation)
        }
        self.state.withLockedValue { state in
            if state.link?.generation == generation {
                state.link?.pump = pump
            } else {
                pump.cancel()
            }
        }
    }

    /// Detaches the channel: no more messages, sends fail with
    /// ``CastChannelError/Code/notConnected``, and ``didDisconnect()`` runs.
    /// Detaching a detached channel does nothing.
    public func detach() {
        let link = self.state.withLockedValue { state in
            defer { state.link = nil }
            return state.link
        }
        guard let link else { return }
        link.pump?.cancel()
        self.didDisconnect()
        self.connectivity.yield(.disconnected)
    }

    /// The connection and endpoint the channel is attached to, if any.
    package var currentLink: (connection: CastConnection, destinationID: String)? {
        self.state.withLockedValue { state in state.link.map { ($0.connection, $0.destinationID) } }
    }

    // MARK: Internals

    private func deliver(_ message: CastMessage) {
        switch message.payload {
        case .string(let text): self.didReceiveTextMessage(text)
        case .binary(let bytes): self.didReceiveBinaryMessage(bytes)
        }
        self.inbound.yield(message.payload)
    }

    /// The connection's messages ended: it closed. Ends the link it belonged to, if still current.
    private func linkEnded(generation: Int) {
        let ended = self.state.withLockedValue { state in
            guard state.link?.generation == generation else { return false }
            state.link = nil
            return true
        }
        guard ended else { return }
        self.didDisconnect()
        self.connectivity.yield(.disconnected)
    }

    private func requireLink() throws(CastChannelError) -> (CastConnection, String) {
        guard let link = self.state.withLockedValue({ $0.link }) else {
            throw CastChannelError(.notConnected, "the \(self.namespace) channel is not connected")
        }
        return (link.connection, link.destinationID)
    }

    private static func makeLogger(_ logger: CastLogger, namespace: String) -> Logger {
        var log = logger.makeLogger(subsystem: "Channels.Channel")
        log[metadataKey: "cast.namespace"] = "\(namespace)"
        return log
    }
}
