public import CastCommon
public import CastLogging
@_spi(Receiver) public import CastTransport
import Logging
import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix
import NIOSSL
public import X509

/// A Cast receiver on this machine for tests, examples and other projects'
/// CI: a TLS server with its own test CA and device-auth responder,
/// heartbeat, and the receiver platform's virtual-connection rules — with
/// fault knobs and an observation stream.
///
/// ```swift
/// let emulator = try CastEmulator()
/// try await emulator.start()
/// let connection = CastConnection(
///     host: "127.0.0.1", port: emulator.port,
///     configuration: CastConnectionConfiguration(
///         deviceAuthentication: .required(trusting: [emulator.trustAnchor])))
/// try await connection.connect()
/// ```
public final class CastEmulator: Sendable {
    /// How this emulator listens and presents itself.
    public let configuration: CastEmulatorConfiguration
    /// The device-auth chain it answers challenges with.
    public let identity: ReceiverIdentity

    private let tls: TLSIdentity
    private let hub: EmulatorHub
    private let group: any EventLoopGroup
    private let logger: Logger
    /// The logger the emulator was made with, for the parts it creates (its mDNS responder).
    let castLogger: CastLogger
    private let server = NIOLockedValueBox<(any Channel)?>(nil)
    private let lastPort = NIOLockedValueBox<Int?>(nil)
    private let mediaTicks = NIOLockedValueBox<RepeatedTask?>(nil)
    /// The setup server's HTTPS and HTTP listeners, while it runs.
    let setupListeners = NIOLockedValueBox<[any Channel]>([])
    /// The TLS context of the Cast port, which the setup server's HTTPS port presents too.
    var tlsContext: NIOSSLContext { self.tls.context }

    /// Creates an emulator with a fresh TLS certificate; it listens after ``start(port:)``.
    ///
    /// - Throws: ``CastEmulatorError/Code/identityFailure`` if a key or certificate cannot be made.
    public init(
        configuration: CastEmulatorConfiguration = CastEmulatorConfiguration(),
        eventLoopGroup: (any EventLoopGroup)? = nil,
        logger: CastLogger = .shared
    ) throws(CastEmulatorError) {
        self.configuration = configuration
        if let identity = configuration.identity {
            self.identity = identity
        } else {
            self.identity = try ReceiverIdentity.shared()
        }
        self.tls = try TLSIdentity(validity: configuration.tlsCertificateValidity, name: configuration.name)
        self.group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        self.castLogger = logger
        var log = logger.makeLogger(subsystem: "Emulator.Platform")
        log[metadataKey: "cast.emulator"] = "\(configuration.name)"
        self.logger = log
        self.hub = EmulatorHub(
            profile: configuration.profile, applications: configuration.applications, host: configuration.host,
            fetchesMedia: configuration.fetchesMedia, eventLoopGroup: self.group, logger: log)
    }

    /// The state every socket shares, for the receiver-platform extension.
    var platformHub: EmulatorHub { self.hub }

    /// The event loops the emulator runs on.
    var eventLoopGroup: any EventLoopGroup { self.group }

    /// The root certificate to configure as a sender's device-auth trust anchor.
    public var trustAnchor: Certificate { self.identity.rootCertificate }

    /// The port the emulator listens on; 0 before ``start(port:)``.
    public var port: Int {
        self.server.withLockedValue { $0?.localAddress?.port } ?? 0
    }

    /// The fault knobs; changes apply to the next message handled.
    public var faults: EmulatorFaults {
        get { self.hub.faults }
        set { self.hub.faults = newValue }
    }

    /// What the emulator observes from now on; each call gives a new, independent stream.
    public func events() -> AsyncStream<EmulatorEvent> {
        self.hub.events.subscribe()
    }

    /// How many senders are connected.
    public var connectionCount: Int { self.hub.channels.count }

    // MARK: Running

    /// Starts listening on the configured host and `port`.
    ///
    /// Started again after ``stop()``, the emulator keeps its receiver state
    /// (the running app, the volume) as a device whose network went away and
    /// came back, and listens on the port it had unless given another: a
    /// different port is how a test moves the receiver to a new address.
    ///
    /// - Parameter port: the port to listen on; `nil` for the configured
    ///   port at the first start, and the previous port after a stop.
    /// - Throws: ``CastEmulatorError/Code/invalidState`` if already started;
    ///   ``CastEmulatorError/Code/bindFailed`` if the address cannot be bound.
    public func start(port: Int? = nil) async throws(CastEmulatorError) {
        guard self.server.withLockedValue({ $0 == nil }) else {
            throw CastEmulatorError(.invalidState, "the emulator is already running")
        }
        let hub = self.hub
        let context = self.tls.context
        let addPlatformHandlers = self.platformHandlers()
        let clock = self.configuration.mediaClock
        let loop = self.group.next()
        let makeBootstrap: @Sendable () -> ServerBootstrap = {
            ServerBootstrap(group: loop)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOSSLServerHandler(context: context))
                        try addPlatformHandlers(sync, .afterTLSHandshake)
                    }
                }
        }
        let host = self.configuration.host
        let port = port ?? self.lastPort.withLockedValue { $0 } ?? self.configuration.port
        let channel: any Channel
        do {
            // Bound from the loop's thread: on Linux a socket belongs to its
            // creating thread's network namespace, and the loop may have joined one.
            channel = try await loop.flatSubmit { makeBootstrap().bind(host: host, port: port) }.get()
        } catch {
            throw CastEmulatorError(
                .bindFailed,
                "cannot listen on \(self.configuration.host):\(port)",
                cause: error
            )
        }
        self.server.withLockedValue { $0 = channel }
        self.lastPort.withLockedValue { $0 = channel.localAddress?.port }
        // The media player's own transitions (an item ends, a clip ends) reach senders within 100 ms.
        let ticks = loop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) { _ in
            hub.tickMedia(now: clock.now)
        }
        self.mediaTicks.withLockedValue { $0 = ticks }
        self.logger.info("listening", metadata: ["cast.port": "\(channel.localAddress?.port ?? 0)"])
    }

    /// Installs the receiver's handlers above the bytes of one sender's
    /// connection (below them: TLS, or nothing in memory): framing, the
    /// heartbeat and the platform.
    private func platformHandlers()
        -> @Sendable (ChannelPipeline.SynchronousOperations, HeartbeatHandler.Start) throws -> Void
    {
        let hub = self.hub
        let responder = DeviceAuthResponder(identity: self.identity, tlsCertificateDER: self.tls.certificateDER)
        let heartbeat = self.configuration.heartbeat
        let heartbeatIDs = HeartbeatAddressing(ping: self.configuration.profile.pingIDs, pong: nil)
        let clock = self.configuration.mediaClock
        let logger = self.logger
        return { sync, heartbeatStart in
            try sync.addHandler(ByteToMessageHandler(CastMessageDecoder()))
            try sync.addHandler(
                HeartbeatHandler(
                    configuration: heartbeat,
                    addressing: heartbeatIDs,
                    isSilenced: { hub.faults.isHeartbeatSilenced },
                    start: heartbeatStart,
                    logger: logger
                )
            )
            try sync.addHandler(EmulatorConnectionHandler(hub: hub, clock: clock, responder: responder, logger: logger))
        }
    }

    /// A connection to this emulator joined in memory: no socket, no TLS
    /// and no port, the sender's pipeline and the emulator's on the two
    /// ends of a pair of channels, for tests of what runs above the socket
    /// (channels, media, sessions) that should not wait on the network or
    /// a busy machine.
    ///
    /// Everything the emulator does on a socket it does here — virtual
    /// connections, the heartbeat, faults, events — and device
    /// authentication, when `configuration` asks for it, verifies as on the
    /// network: the emulator signs over the certificate its TLS would present.
    /// The emulator accepts it while running (``start(port:)``, which also
    /// runs its media player's own transitions), and refuses it once
    /// stopped, as its port does: the connection fails with
    /// `CastTransportError.Code.connectionFailed`. The connection's `host`
    /// and `port` are the emulator's address, which Cast Streaming beside
    /// it still uses.
    ///
    /// - Parameters:
    ///   - configuration: the sender's settings; device authentication off by default.
    ///   - logger: the sender's log hub.
    /// - Returns: a connection; nothing happens until its `connect()`.
    public func inMemoryConnection(
        configuration: CastConnectionConfiguration = CastConnectionConfiguration(deviceAuthentication: .off),
        logger: CastLogger = .shared
    ) -> CastConnection {
        let addPlatformHandlers = self.platformHandlers()
        let loop = self.group.next()
        let certificate = self.tls.certificateDER
        let server = self.server
        return CastConnection(
            inMemory: { senderLoop in
                // Refused while stopped, as the port is: a test's "device off the network".
                guard server.withLockedValue({ $0 != nil }) else {
                    throw CastEmulatorError(.invalidState, "the emulator is not running")
                }
                let (senderEnd, receiverEnd) = InMemoryChannel.makePair(on: senderLoop, and: loop)
                // No receiver behaviour is new here: the same platform handlers as on a socket
                // (their sources are cited there); only TLS is absent, so the heartbeat starts
                // where the handshake would have ended, when the link is up.
                try await loop.submit { try addPlatformHandlers(receiverEnd.pipeline.syncOperations, .whenActive) }
                    .get()
                try await receiverEnd.activate().get()
                return InMemoryLink(channel: senderEnd, certificateDER: certificate)
            }, host: self.configuration.host, port: self.port, configuration: configuration, logger: logger)
    }

    /// Stops listening and closes every sender socket; the receiver state stays.
    public func stop() async {
        let server = self.server.withLockedValue { server in
            defer { server = nil }
            return server
        }
        try? await server?.close()
        self.mediaTicks.withLockedValue { ticks in
            ticks?.cancel()
            ticks = nil
        }
        await self.closeConnections()
        await self.stopSetupServer()
        self.hub.streaming.stop()
        self.logger.info("stopped")
    }

    // MARK: Receiver apps

    /// Answers a message in one namespace: returns the replies to send back
    /// on the same socket (often one, addressed to the message's source).
    public typealias Responder = @Sendable (CastMessage) -> [CastMessage]

    /// Answers messages in `namespace` with `responder` — a custom receiver
    /// app's protocol, scripted by a test. Messages reach it only through a
    /// virtual connection, as on a real receiver. `nil` removes it.
    public func respond(to namespace: String, with responder: Responder?) {
        self.hub.setResponder(responder, for: namespace)
    }

    // MARK: Acting on senders

    /// Sends `message` to every connected sender.
    public func send(_ message: CastMessage) async {
        for (_, channel) in self.hub.channels {
            guard let frame = try? CastMessageFramer.frame(message, allocator: channel.allocator) else { return }
            try? await channel.writeAndFlush(frame)
        }
    }

    /// Sends raw bytes to every connected sender, bypassing framing: for
    /// malformed-frame faults.
    public func sendRawBytes(_ bytes: [UInt8]) async {
        for (_, channel) in self.hub.channels {
            try? await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        }
    }

    /// Sends a frame whose length prefix is 65537, one over the limit.
    public func sendOversizedFrame() async {
        await self.sendRawBytes([0x00, 0x01, 0x00, 0x01] + [UInt8](repeating: 0, count: 16))
    }

    /// Sends a frame whose length prefix is 0.
    public func sendZeroLengthFrame() async {
        await self.sendRawBytes([0x00, 0x00, 0x00, 0x00])
    }

    /// Sends a well-framed body that is not a protobuf.
    public func sendGarbageFrame() async {
        await self.sendRawBytes([0x00, 0x00, 0x00, 0x08] + [UInt8](repeating: 0xFF, count: 8))
    }

    /// Closes every sender socket abruptly, as a receiver that drops off the network.
    public func closeConnections() async {
        for (_, channel) in self.hub.channels {
            try? await channel.close()
        }
    }

    /// Sends CLOSE from `sourceID` (`receiver-0` or an app's transport id)
    /// to the sender `senderID` on every socket, and forgets that virtual connection.
    public func closeVirtualConnection(
        from sourceID: String = CastEndpointID.receiverPlatform,
        to senderID: String,
        reason: VirtualConnectionCloseReason = .closedBySelf
    ) async {
        self.hub.closeLinks(to: sourceID, senderID: senderID, reason: reason)
    }

    /// Stops (or resumes) reading from every sender socket, so senders' writes back up.
    public func setReadingPaused(_ paused: Bool) async {
        for (_, channel) in self.hub.channels {
            try? await channel.setOption(ChannelOptions.autoRead, value: !paused).get()
            if !paused { channel.read() }
        }
    }
}
