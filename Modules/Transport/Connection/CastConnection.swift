import CastCommon
public import CastLogging
import Foundation
import Logging
public import NIOCore
import NIOPosix

/// A secure control-channel connection to one Cast receiver: TCP + TLS,
/// framing, heartbeat, device authentication, message routing and virtual
/// connections (Docs/spec/castv2-control.md §2–§4).
///
/// One instance is one socket's life: idle → connecting → connected →
/// (authenticated) → disconnected. To connect again, make a new instance
/// (the session layer does this with a ``ReconnectPolicy``). When the
/// connection ends, every stream it handed out finishes and every pending
/// operation fails with the reason, which ``stateUpdates()`` also reports.
///
/// ```swift
/// let connection = CastConnection(host: "192.168.1.20", port: 8009)
/// try await connection.connect()
/// try await connection.openVirtualConnection(to: "receiver-0")
/// let replies = connection.messages(namespace: "urn:x-cast:com.google.cast.receiver")
/// try await connection.send(namespace: "urn:x-cast:com.google.cast.receiver", to: "receiver-0",
///                           text: #"{"type":"GET_STATUS","requestId":1}"#)
/// ```
public actor CastConnection {
    /// The receiver's host name or address.
    public nonisolated let host: String
    /// The receiver's port (8009 for devices; groups use others).
    public nonisolated let port: Int
    /// How this connection behaves.
    public nonisolated let configuration: CastConnectionConfiguration
    /// This socket's sender id, `sender-<n>` with a random `n`: the source of app messages.
    public nonisolated let senderID: String

    private enum State {
        case idle
        case connecting
        case connected(ConnectedChannel, SendBudget, isAuthenticated: Bool)
        case disconnected(CastTransportError)
    }

    private var state = State.idle
    private let group: any EventLoopGroup
    let logger: Logger
    private let router: MessageRouter
    let closeReason = CloseReason()
    private let stateBroadcaster = EventBroadcaster<CastConnectionState>(initial: .idle)
    let virtualConnectionBroadcaster = EventBroadcaster<VirtualConnectionEvent>(initial: nil)
    var openVirtualConnections: [String: VirtualConnectionType] = [:]
    private var peerCloseListener: Task<Void, Never>?
    private let requestIDs = RequestIDGenerator()
    /// The receiver an in-memory connection joins; `nil` over the network.
    private let inMemoryReceiver: InMemoryReceiver?

    /// Why device authentication failed, when the policy is
    /// ``DeviceAuthenticationPolicy/Requirement/optional`` and it did; `nil` otherwise.
    public private(set) var authenticationFailure: CastTransportError?
    /// What the device's verified certificate chain says of it; `nil` until
    /// device authentication passes (and when it is off or failed).
    public private(set) var verifiedDevice: VerifiedDevice?

    /// How device authentication ended on this connection.
    public var deviceVerification: DeviceVerification {
        if let verifiedDevice { return .verified(verifiedDevice) }
        if let authenticationFailure { return .unverified(authenticationFailure) }
        return .notChecked
    }

    /// Creates a connection; nothing happens until ``connect()``.
    ///
    /// - Parameters:
    ///   - host: the receiver's host name or address.
    ///   - port: the receiver's port; 8009 by default.
    ///   - configuration: timeouts, heartbeat, device authentication, queue limits.
    ///   - eventLoopGroup: where the socket runs; `nil` for NIO's shared group.
    ///   - logger: the log hub; `CastLogger.shared` by default.
    public init(
        host: String,
        port: Int = 8009,
        configuration: CastConnectionConfiguration = CastConnectionConfiguration(),
        eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: CastLogger = .shared
    ) {
        self.init(
            host: host, port: port, inMemoryReceiver: nil, configuration: configuration,
            eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// Creates a connection joined to `receiver` in memory (an
    /// ``InMemoryChannel`` pair, no socket and no TLS), for tests: the
    /// emulator's `inMemoryConnection` makes one. Device authentication
    /// runs as configured, over the certificate the receiver presents.
    /// `host` and `port` are the receiver's address on the network, which
    /// what rides beside the connection (Cast Streaming's UDP) still uses.
    package init(
        inMemory receiver: @escaping InMemoryReceiver,
        host: String,
        port: Int,
        configuration: CastConnectionConfiguration = CastConnectionConfiguration(),
        eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: CastLogger = .shared
    ) {
        self.init(
            host: host, port: port, inMemoryReceiver: receiver, configuration: configuration,
            eventLoopGroup: eventLoopGroup, logger: logger)
    }

    private init(
        host: String,
        port: Int,
        inMemoryReceiver: InMemoryReceiver?,
        configuration: CastConnectionConfiguration,
        eventLoopGroup: (any EventLoopGroup)?,
        logger: CastLogger
    ) {
        self.host = host
        self.port = port
        self.inMemoryReceiver = inMemoryReceiver
        self.configuration = configuration
        self.group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        let senderID = "sender-\(UInt32.random(in: TransportConstants.senderIDRange))"
        self.senderID = senderID
        var log = logger.makeLogger(subsystem: "Transport.Connection")
        log[metadataKey: "cast.peer"] = "\(host):\(port)"
        log[metadataKey: "cast.sender"] = "\(senderID)"
        self.logger = log
        self.router = MessageRouter(bufferLimit: configuration.inboundBufferLimit, logger: log)
    }

    // MARK: Observing

    /// The current state.
    public var currentState: CastConnectionState {
        switch self.state {
        case .idle: .idle
        case .connecting: .connecting
        case .connected(_, _, let isAuthenticated): isAuthenticated ? .authenticated : .connected
        case .disconnected(let reason): .disconnected(reason)
        }
    }

    /// The current state, then every change, ending after ``CastConnectionState/disconnected(_:)``.
    /// Each call gives a new, independent stream.
    public nonisolated func stateUpdates() -> AsyncStream<CastConnectionState> {
        self.stateBroadcaster.subscribe()
    }

    /// Inbound messages that match `filter`, until the connection ends.
    /// Each call gives a new, independent stream; subscribe before sending a
    /// request so the reply cannot be missed.
    public nonisolated func messages(matching filter: MessageFilter) -> AsyncStream<CastMessage> {
        self.router.subscribe(filter)
    }

    /// Inbound messages in `namespace`, optionally from one source and to one
    /// destination (broadcasts always match), until the connection ends.
    public nonisolated func messages(
        namespace: String,
        from sourceID: String? = nil,
        to destinationID: String? = nil
    ) -> AsyncStream<CastMessage> {
        self.router.subscribe(MessageFilter(namespace: namespace, sourceID: sourceID, destinationID: destinationID))
    }

    /// A fresh `requestId` for a request on this connection: positive,
    /// increasing from 1, never 0, shared by every channel on the socket
    /// so no two pending requests carry the same id (§5).
    public nonisolated func makeRequestID() -> Int {
        self.requestIDs.next()
    }

    // MARK: Connecting and closing

    /// Connects: TCP, TLS, then device authentication as the policy says.
    ///
    /// - Throws: ``CastTransportError/Code/alreadyStarted`` on a second call;
    ///   ``CastTransportError/Code/connectTimedOut``,
    ///   ``CastTransportError/Code/connectionFailed`` or
    ///   ``CastTransportError/Code/tlsHandshakeFailed``; with a required
    ///   policy, the device-authentication failure; or the reason the
    ///   connection ended meanwhile.
    public func connect() async throws(CastTransportError) {
        guard case .idle = self.state else {
            throw CastTransportError(.alreadyStarted, "connect() was already called; make a new CastConnection")
        }
        self.transition(to: .connecting)
        self.logger.debug("connecting")
        let connected: ConnectedChannel
        let onClose: @Sendable (CastTransportError) -> Void = { [weak self] reason in
            Task { await self?.end(reason) }
        }
        do {
            if let receiver = self.inMemoryReceiver {
                connected = try await CastClientBootstrap.connect(
                    inMemory: receiver, group: self.group, configuration: self.configuration, router: self.router,
                    closeReason: self.closeReason, logger: self.logger, onClose: onClose)
            } else {
                connected = try await CastClientBootstrap.connect(
                    host: self.host, port: self.port, configuration: self.configuration, group: self.group,
                    router: self.router, closeReason: self.closeReason, logger: self.logger, onClose: onClose)
            }
        } catch {
            self.end(error)
            throw error
        }
        guard case .connecting = self.state else {
            connected.channel.close(promise: nil)
            throw self.closeReason.value(or: CastTransportError(.closed, "the connection was closed while connecting"))
        }
        let budget = SendBudget(limit: self.configuration.outboundQueueLimit)
        self.transition(to: .connected(connected, budget, isAuthenticated: false))
        self.logger.info("connected")
        self.listenForPeerCloses()
        try await self.authenticateAsConfigured(connected)
    }

    /// Closes the connection: sends CLOSE on every open virtual connection,
    /// then closes the socket. Streams finish and the state becomes
    /// ``CastConnectionState/disconnected(_:)`` with ``CastTransportError/Code/closed``.
    public func close() async {
        let reason = CastTransportError(.closed, "the app closed the connection")
        switch self.state {
        case .idle, .connecting:
            self.closeReason.record(reason)
            self.end(reason)
        case .connected(let connected, _, _):
            self.closeReason.record(reason)
            self.sendCloseToOpenVirtualConnections()
            try? await connected.channel.close()
            self.end(reason)
        case .disconnected:
            return
        }
    }

    // MARK: Sending

    /// Queues `message` for the socket and returns; it does not wait for the write.
    ///
    /// - Throws: ``CastTransportError/Code/notConnected`` (with the
    ///   disconnect reason as cause, if any),
    ///   ``CastTransportError/Code/sendBufferFull``,
    ///   ``CastTransportError/Code/invalidMessage`` or
    ///   ``CastTransportError/Code/messageTooLarge``.
    public func send(_ message: CastMessage) throws(CastTransportError) {
        let (connected, budget) = try self.requireConnected()
        let frame = try CastMessageFramer.frame(message, allocator: connected.channel.allocator)
        guard budget.tryAcquire() else {
            throw CastTransportError(
                .sendBufferFull,
                "\(budget.limit) messages are already waiting to be written"
            )
        }
        self.logger.trace(
            "sending",
            metadata: ["cast.namespace": "\(message.namespace)", "cast.destination": "\(message.destinationID)"]
        )
        connected.channel.writeAndFlush(frame).whenComplete { _ in budget.release() }
    }

    /// Sends a text (JSON) message from this connection's ``senderID``.
    public func send(namespace: String, to destinationID: String, text: String) throws(CastTransportError) {
        try self.send(
            CastMessage(
                namespace: namespace, sourceID: self.senderID, destinationID: destinationID, payload: .string(text))
        )
    }

    /// Sends a binary message from this connection's ``senderID``.
    public func send(namespace: String, to destinationID: String, bytes: [UInt8]) throws(CastTransportError) {
        try self.send(
            CastMessage(
                namespace: namespace, sourceID: self.senderID, destinationID: destinationID, payload: .binary(bytes))
        )
    }

    // MARK: Internals

    /// The live channel, or the typed reason there is none.
    func requireConnected() throws(CastTransportError) -> (ConnectedChannel, SendBudget) {
        switch self.state {
        case .connected(let connected, let budget, _):
            return (connected, budget)
        case .disconnected(let reason):
            throw CastTransportError(.notConnected, "the connection has ended", cause: reason)
        case .idle, .connecting:
            throw CastTransportError(.notConnected, "the connection is not connected yet")
        }
    }

    /// Throws the reason the connection is ending, if it is.
    func throwIfEnding() throws(CastTransportError) {
        if let reason = self.closeReason.recorded { throw reason }
        if case .disconnected(let reason) = self.state { throw reason }
    }

    /// Marks the connection authenticated as `device`, if it is still up.
    func markAuthenticated(_ device: VerifiedDevice) {
        guard case .connected(let connected, let budget, isAuthenticated: false) = self.state else { return }
        self.verifiedDevice = device
        self.transition(to: .connected(connected, budget, isAuthenticated: true))
        self.logger.info("device authenticated")
    }

    /// Records an optional policy's failure.
    func recordAuthenticationFailure(_ error: CastTransportError) {
        self.authenticationFailure = error
    }

    /// Ends the connection for `reason`, once: closes the socket if open,
    /// finishes every stream, and publishes the final state.
    func end(_ reason: CastTransportError) {
        if case .disconnected = self.state { return }
        self.closeReason.record(reason)
        if case .connected(let connected, _, _) = self.state {
            connected.channel.close(promise: nil)
        }
        let final = self.closeReason.value(or: reason)
        self.state = .disconnected(final)
        self.logger.info("disconnected", metadata: ["cast.reason": "\(final)"])
        self.peerCloseListener?.cancel()
        self.peerCloseListener = nil
        self.router.finish()
        self.openVirtualConnections.removeAll()
        self.virtualConnectionBroadcaster.finish()
        self.stateBroadcaster.finish(with: .disconnected(final))
    }

    private func transition(to state: State) {
        self.state = state
        self.stateBroadcaster.yield(self.currentState)
    }

    /// Watches the connection namespace for the receiver closing a virtual connection.
    private func listenForPeerCloses() {
        let closes = self.router.subscribe(
            MessageFilter(namespace: TransportNamespace.connection, destinationID: self.senderID)
        )
        self.peerCloseListener = Task { [weak self] in
            for await message in closes {
                await self?.handleConnectionMessage(message)
            }
        }
    }
}
