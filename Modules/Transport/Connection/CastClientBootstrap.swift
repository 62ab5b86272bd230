import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// A TLS connection to a receiver with the sender's pipeline in place.
struct ConnectedChannel: Sendable {
    /// The channel; write framed `ByteBuffer`s to it.
    let channel: any Channel
    /// The receiver's TLS certificate, DER (empty if it presented none).
    let peerCertificateDER: [UInt8]
}

/// Opens the socket: TCP, then TLS accepting the receiver's self-signed
/// certificate (the trust decision is device authentication), then the
/// sender's pipeline:
///
/// TLS → handshake waiter → ``CastMessageDecoder`` → ``HeartbeatHandler`` →
/// ``InboundMessageHandler``. Outbound, the pipeline carries framed bytes.
enum CastClientBootstrap {
    /// The TLS client context: no chain or hostname check. Built once; it is immutable and shared.
    private static let tlsContext = Result { () throws -> NIOSSLContext in
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return try NIOSSLContext(configuration: configuration)
    }

    /// Connects within `configuration.connectTimeout` (TCP and TLS together).
    static func connect(
        host: String,
        port: Int,
        configuration: CastConnectionConfiguration,
        group: any EventLoopGroup,
        router: MessageRouter,
        closeReason: CloseReason,
        logger: Logger,
        onClose: @escaping @Sendable (CastTransportError) -> Void
    ) async throws(CastTransportError) -> ConnectedChannel {
        let context: NIOSSLContext
        do {
            context = try Self.tlsContext.get()
        } catch {
            throw CastTransportError(.tlsHandshakeFailed, "the TLS client context cannot be created", cause: error)
        }
        let loop = group.next()
        let deadline = NIODeadline.now() + TimeAmount(configuration.connectTimeout)
        let handshake = loop.makePromise(of: [UInt8].self)
        let bootstrap = Self.makeBootstrap(
            on: loop, context: context, handshake: handshake, configuration: configuration, router: router,
            closeReason: closeReason, logger: logger, onClose: onClose)
        let channel = try await Self.openChannel(
            with: bootstrap, host: host, port: port, handshake: handshake, router: router)

        // Scheduled and tied to the handshake on the loop itself: when opening
        // the channel took past the deadline (a busy machine) and the handshake
        // had already succeeded, a timeout scheduled from here ran on the loop
        // before the cancellation queued after it, and closed the new
        // connection as timed out. On the loop, an ended handshake cancels the
        // timeout before the loop can run it.
        try? await loop.submit {
            let timeout = loop.scheduleTask(deadline: deadline) {
                let error = CastTransportError(.connectTimedOut, "no TLS handshake with \(host):\(port) in time")
                closeReason.record(error)
                handshake.fail(error)
                channel.close(promise: nil)
            }
            handshake.futureResult.whenComplete { _ in timeout.cancel() }
        }.get()
        do {
            let certificate = try await handshake.futureResult.get()
            return ConnectedChannel(channel: channel, peerCertificateDER: certificate)
        } catch {
            try? await channel.close()
            throw InboundMessageHandler.transportError(for: error)
        }
    }

    /// A bootstrap on `loop` whose channels get TLS with `context`, the
    /// handshake waiter completing `handshake`, and the sender's message handlers.
    private static func makeBootstrap(
        on loop: any EventLoop,
        context: NIOSSLContext,
        handshake: EventLoopPromise<[UInt8]>,
        configuration: CastConnectionConfiguration,
        router: MessageRouter,
        closeReason: CloseReason,
        logger: Logger,
        onClose: @escaping @Sendable (CastTransportError) -> Void
    ) -> ClientBootstrap {
        let heartbeat = configuration.heartbeat
        return ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    try sync.addHandler(TLSHandshakeHandler(promise: handshake, closeReason: closeReason))
                    try Self.addMessageHandlers(
                        to: sync, heartbeat: heartbeat, heartbeatStart: .afterTLSHandshake, router: router,
                        closeReason: closeReason, logger: logger, onClose: onClose)
                }
            }
    }

    /// Opens the TCP connection to `host`:`port`; when it fails, fails
    /// `handshake`, finishes `router` and throws the transport error.
    private static func openChannel(
        with bootstrap: ClientBootstrap,
        host: String,
        port: Int,
        handshake: EventLoopPromise<[UInt8]>,
        router: MessageRouter
    ) async throws(CastTransportError) -> any Channel {
        do {
            return try await bootstrap.connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)
            router.finish()
            if case ChannelError.connectTimeout = error {
                throw CastTransportError(.connectTimedOut, "no TCP connection to \(host):\(port) in time", cause: error)
            }
            throw CastTransportError(.connectionFailed, "cannot connect to \(host):\(port)", cause: error)
        }
    }

    /// Joins the sender to a receiver in memory (``InMemoryChannel``): the
    /// receiver makes the pair and sets up its end, the sender's pipeline
    /// goes on the other end without TLS, and the receiver's certificate
    /// stands for the one its TLS handshake would have shown.
    static func connect(
        inMemory receiver: InMemoryReceiver,
        group: any EventLoopGroup,
        configuration: CastConnectionConfiguration,
        router: MessageRouter,
        closeReason: CloseReason,
        logger: Logger,
        onClose: @escaping @Sendable (CastTransportError) -> Void
    ) async throws(CastTransportError) -> ConnectedChannel {
        let link: InMemoryLink
        do {
            link = try await receiver(group.next())
        } catch {
            router.finish()
            throw CastTransportError(.connectionFailed, "the in-memory receiver did not accept", cause: error)
        }
        let channel = link.channel
        let heartbeat = configuration.heartbeat
        do {
            try await channel.eventLoop.submit {
                try Self.addMessageHandlers(
                    to: channel.pipeline.syncOperations, heartbeat: heartbeat, heartbeatStart: .whenActive,
                    router: router, closeReason: closeReason, logger: logger, onClose: onClose)
            }.get()
            try await channel.activate().get()
        } catch {
            router.finish()
            try? await channel.close()
            throw CastTransportError(.connectionFailed, "the in-memory link could not be set up", cause: error)
        }
        return ConnectedChannel(channel: channel, peerCertificateDER: link.certificateDER)
    }

    /// The sender's handlers above the bytes (below them: TLS, or nothing in memory).
    private static func addMessageHandlers(
        to sync: ChannelPipeline.SynchronousOperations,
        heartbeat: HeartbeatConfiguration,
        heartbeatStart: HeartbeatHandler.Start,
        router: MessageRouter,
        closeReason: CloseReason,
        logger: Logger,
        onClose: @escaping @Sendable (CastTransportError) -> Void
    ) throws {
        try sync.addHandler(ByteToMessageHandler(CastMessageDecoder()))
        try sync.addHandler(
            HeartbeatHandler(configuration: heartbeat, addressing: .sender, start: heartbeatStart, logger: logger))
        try sync.addHandler(
            InboundMessageHandler(router: router, closeReason: closeReason, logger: logger, onClose: onClose))
    }
}
