public import Logging
public import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// One UDP socket speaking mDNS on one interface for one IP version.
///
/// The socket binds the wildcard address on port 5353 (shared with other
/// mDNS stacks through `SO_REUSEADDR`/`SO_REUSEPORT`), joins the group on
/// its interface only, and sends multicast out of that interface with TTL
/// 255 (RFC 6762 §11) and loopback on, so a responder on the same host hears
/// it. `IP_MULTICAST_ALL` is off, so the kernel delivers only the group
/// traffic of the interface this socket joined on.
///
/// Received datagrams are decoded here; malformed ones are logged and
/// dropped. Everything runs on the channel's event loop.
@_spi(Receiver) public final class MDNSSocket: Sendable {
    /// A decoded datagram: the message, who sent it, and the interface it arrived on.
    @_spi(Receiver) public typealias Receiver = @Sendable (DNSMessage, SocketAddress, Int) -> Void

    /// The interface the socket serves.
    @_spi(Receiver) public let interface: NetworkInterface
    /// The IP version the socket speaks.
    @_spi(Receiver) public let family: AddressFamilies
    /// The group and port multicast goes to.
    @_spi(Receiver) public let groupAddress: SocketAddress
    private let channel: any Channel
    private let logger: Logger

    /// The largest datagram sent or accepted (RFC 6762 §17).
    @_spi(Receiver) public static let maximumDatagramSize = 9000

    private init(
        interface: NetworkInterface, family: AddressFamilies, group: SocketAddress, channel: any Channel, logger: Logger
    ) {
        self.interface = interface
        self.family = family
        self.groupAddress = group
        self.channel = channel
        self.logger = logger
    }

    /// Opens a socket for `family` (``AddressFamilies/ipv4`` or ``AddressFamilies/ipv6``) on `interface`.
    ///
    /// The socket is created on `eventLoop`'s thread, so it belongs to that
    /// thread's network namespace.
    @_spi(Receiver) public static func open(
        on interface: NetworkInterface,
        family: AddressFamilies,
        port: Int,
        eventLoop: any EventLoop,
        logger: Logger,
        receiver: @escaping Receiver
    ) -> EventLoopFuture<MDNSSocket> {
        guard eventLoop.inEventLoop else {
            return eventLoop.flatSubmit {
                Self.open(
                    on: interface, family: family, port: port, eventLoop: eventLoop, logger: logger, receiver: receiver)
            }
        }
        let isIPv6 = family == .ipv6
        let group: SocketAddress
        do {
            group = try SocketAddress(ipAddress: isIPv6 ? "ff02::fb" : "224.0.0.251", port: port)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        var socketLogger = logger
        socketLogger[metadataKey: "mdns.interface"] = "\(interface.name)"
        socketLogger[metadataKey: "mdns.family"] = "\(isIPv6 ? "ipv6" : "ipv4")"
        let handlerLogger = socketLogger
        let interfaceIndex = interface.index
        var bootstrap = DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socket(SocketOptionLevel(SOL_SOCKET), SocketOptionName(SO_REUSEPORT)), value: 1)
            .channelOption(.receivePacketInfo, value: true)
            // Whole datagrams up to mDNS's 9000 bytes (NIO reads 2048 by default and cut longer ones),
            // a burst drained in few wake-ups, and room in the kernel for a network answering at once
            // (the kernel caps the buffer at net.core.rmem_max).
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.maximumDatagramSize))
            .channelOption(.maxMessagesPerRead, value: 16)
            .channelOption(.socketOption(.so_rcvbuf), value: 1 << 20)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        MDNSInboundHandler(
                            defaultInterfaceIndex: interfaceIndex, logger: handlerLogger, receiver: receiver)
                    )
                }
            }
        if isIPv6 {
            bootstrap = bootstrap.channelOption(
                .socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_V6ONLY)), value: 1)
        }
        return bootstrap.bind(host: isIPv6 ? "::" : "0.0.0.0", port: port).flatMap { channel in
            Self.joinGroup(channel: channel, interface: interface, isIPv6: isIPv6).map {
                MDNSSocket(interface: interface, family: family, group: group, channel: channel, logger: handlerLogger)
            }.flatMapErrorThrowing { error in
                channel.close(promise: nil)
                throw error
            }
        }
    }

    /// Joins the group on the interface and points multicast sends at it.
    private static func joinGroup(channel: any Channel, interface: NetworkInterface, isIPv6: Bool) -> EventLoopFuture<
        Void
    > {
        guard let options = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let index = interface.index
        if isIPv6 {
            var ipv6Request = ipv6_mreq()
            _ = inet_pton(AF_INET6, "ff02::fb", &ipv6Request.ipv6mr_multiaddr)
            ipv6Request.ipv6mr_interface = UInt32(index)
            let request = ipv6Request
            // Linux's IPV6_MULTICAST_ALL (29): only the groups this socket joined.
            return channel.setOption(.socket(SocketOptionLevel(IPPROTO_IPV6), 29), value: 0).flatMap {
                // ipv6_mreq is the kernel's struct for IPV6_JOIN_GROUP; the safe NIO call needs an address-based device.
                options.unsafeSetSocketOption(level: .ipv6, name: .ipv6_join_group, value: request)
            }.flatMap {
                channel.setOption(
                    .socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_MULTICAST_IF)), value: index)
            }.flatMap {
                channel.setOption(
                    .socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_MULTICAST_HOPS)), value: 255)
            }.flatMap {
                channel.setOption(
                    .socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_MULTICAST_LOOP)), value: 1)
            }
        }
        var ipv4Request = ip_mreqn()
        _ = inet_pton(AF_INET, "224.0.0.251", &ipv4Request.imr_multiaddr)
        ipv4Request.imr_ifindex = CInt(index)
        let request = ipv4Request
        // Linux's IP_MULTICAST_ALL (49): only the groups this socket joined.
        return channel.setOption(.ipOption(NIOBSDSocket.Option(rawValue: 49)), value: 0).flatMap {
            // ip_mreqn names the interface by index, which the kernel accepts for both options.
            options.unsafeSetSocketOption(level: .ip, name: .ip_add_membership, value: request)
        }.flatMap {
            options.unsafeSetSocketOption(level: .ip, name: .ip_multicast_if, value: request)
        }.flatMap {
            channel.setOption(.ipOption(.ip_multicast_ttl), value: 255)
        }.flatMap {
            channel.setOption(.ipOption(.ip_multicast_loop), value: 1)
        }
    }

    /// Sends `message` to the group, or to `destination` (a unicast reply).
    @_spi(Receiver) public func send(_ message: DNSMessage, to destination: SocketAddress? = nil) {
        let bytes: [UInt8]
        do {
            bytes = try message.encoded()
        } catch {
            self.logger.error("cannot encode mDNS message", metadata: ["error": "\(error)"])
            return
        }
        guard bytes.count <= Self.maximumDatagramSize else {
            self.logger.error("mDNS message too large to send", metadata: ["mdns.bytes": "\(bytes.count)"])
            return
        }
        let envelope = AddressedEnvelope(
            remoteAddress: destination ?? self.groupAddress,
            data: self.channel.allocator.buffer(bytes: bytes)
        )
        let logger = self.logger
        self.channel.writeAndFlush(envelope).whenFailure { error in
            logger.debug("mDNS send failed", metadata: ["error": "\(error)"])
        }
    }

    /// Leaves the group and closes the socket.
    @_spi(Receiver) public func close() -> EventLoopFuture<Void> {
        self.channel.close().recover { _ in }
    }
}

/// Decodes each datagram into a ``DNSMessage`` and hands it on; drops what does not decode.
private final class MDNSInboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let defaultInterfaceIndex: Int
    private let logger: Logger
    private let receiver: MDNSSocket.Receiver

    init(defaultInterfaceIndex: Int, logger: Logger, receiver: @escaping MDNSSocket.Receiver) {
        self.defaultInterfaceIndex = defaultInterfaceIndex
        self.logger = logger
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        let bytes = Array(buffer: envelope.data)
        guard bytes.count <= MDNSSocket.maximumDatagramSize else {
            self.logger.debug("dropped oversized mDNS datagram", metadata: ["mdns.bytes": "\(bytes.count)"])
            return
        }
        do {
            let message = try DNSMessage(decoding: bytes)
            // Unicast replies may reach any socket sharing the port; the packet info names the real interface.
            let interfaceIndex = envelope.metadata?.packetInfo?.interfaceIndex ?? self.defaultInterfaceIndex
            self.receiver(message, envelope.remoteAddress, interfaceIndex)
        } catch {
            self.logger.debug(
                "dropped malformed mDNS datagram",
                metadata: ["error": "\(error)", "mdns.source": "\(envelope.remoteAddress)"]
            )
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP errors of earlier sends here; the socket stays usable.
        self.logger.debug("mDNS socket error", metadata: ["error": "\(error)"])
    }
}
