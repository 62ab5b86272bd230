import Logging
import NIOCore
import NIOPosix

/// Asks one host's own mDNS responder for its Cast services, by legacy
/// unicast DNS (RFC 6762 §5.5, §6.7): a query from an ephemeral port to the
/// host's port 5353, answered by unicast to that port with the query's id.
/// Multicast need not pass: this reaches a device on another subnet, behind
/// a router that drops mDNS, or known only by its address.
///
/// The first query asks for the service's PTRs; what the answer leaves out
/// (an instance's SRV or TXT, a target's address) is asked for next, as the
/// browser asks (``BrowserEngine``, whose cache and checks the answers go
/// through). Only answers from the host's port 5353 count, and a device's
/// address must be the host's own: a host speaks for itself and for the
/// groups it leads, never for another machine.
struct UnicastQuery {
    /// Queries after the first, for what earlier answers left out.
    static let maximumFollowUps = 2
    /// How long a host has to answer when discovery asks it by itself (a known host, a
    /// remembered address, a refresh); a scan has its own (``SubnetScanConfiguration``).
    static let timeout: TimeAmount = .seconds(2)

    /// The devices `host` describes, or none when it does not answer within `timeout`.
    static func devices(
        at host: IPAddress, port: Int = 5353, eventLoop: any EventLoop, timeout: TimeAmount, logger: Logger
    ) -> EventLoopFuture<[CastDevice]> {
        eventLoop.flatSubmit {
            let target: SocketAddress
            do {
                target = try SocketAddress(ipAddress: host.description, port: port)
            } catch {
                return eventLoop.makeSucceededFuture([])
            }
            let promise = eventLoop.makePromise(of: [CastDevice].self)
            let isIPv6 = if case .v6 = host { true } else { false }
            return DatagramBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            Handler(host: host, target: target, logger: logger, promise: promise))
                    }
                }
                .bind(host: isIPv6 ? "::" : "0.0.0.0", port: 0)
                .flatMap { channel in
                    let timer = eventLoop.scheduleTask(in: timeout) { promise.succeed([]) }
                    return promise.futureResult.always { _ in
                        timer.cancel()
                        channel.close(promise: nil)
                    }
                }
        }
    }

    /// The query state for one host, on its channel.
    private final class Handler: ChannelInboundHandler {
        private let host: IPAddress
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>

        private let target: SocketAddress
        private let logger: Logger
        private let promise: EventLoopPromise<[CastDevice]>
        private var engine: BrowserEngine
        private var queryID = UInt16.random(in: 1...UInt16.max)
        private var followUps = 0

        init(host: IPAddress, target: SocketAddress, logger: Logger, promise: EventLoopPromise<[CastDevice]>) {
            self.host = host
            self.target = target
            self.logger = logger
            self.promise = promise
            self.engine = BrowserEngine(
                serviceType: DiscoveryRuntime.serviceType, scanMode: .passive,
                timing: BrowserEngine.Timing(
                    activeMaximumQueryInterval: .seconds(3600), passiveMaximumQueryInterval: .seconds(3600)))
            self.engine.addInterface(index: 0, name: "unicast", scope: AddressScope(onlyFor: host), now: .now())
        }

        func channelActive(context: ChannelHandlerContext) {
            self.send([DNSQuestion(name: DiscoveryRuntime.serviceType, type: .ptr)], context: context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = Self.unwrapInboundIn(data)
            // Only the host's responder, and only answers to our query.
            guard envelope.remoteAddress == self.target else { return }
            var buffer = envelope.data
            guard let message = try? DNSMessage(decoding: buffer.readBytes(length: buffer.readableBytes) ?? []),
                message.id == self.queryID
            else {
                self.logger.debug(
                    "dropping a unicast DNS answer", metadata: ["mdns.source": "\(envelope.remoteAddress)"])
                return
            }
            let step = self.engine.receive(message, interfaceIndex: 0, sourcePort: 5353, now: .now())
            for refusal in step.refusals {
                self.logger.debug("dropping a device record", metadata: ["mdns.record": "\(refusal)"])
            }
            let missing = self.engine.missingQuestions
            if missing.isEmpty || self.followUps >= UnicastQuery.maximumFollowUps {
                let devices = self.engine.devices.values.filter { $0.addresses.contains(self.host) }.map { device in
                    var device = device
                    device.source = .unicast
                    return device
                }
                self.promise.succeed(devices.sorted { $0.instanceName < $1.instanceName })
            } else {
                self.followUps += 1
                self.send(missing, context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // An ICMP port unreachable, for one: nobody answers there.
            self.promise.succeed([])
        }

        private func send(_ questions: [DNSQuestion], context: ChannelHandlerContext) {
            self.queryID = self.queryID &+ 1
            guard let bytes = try? DNSMessage(id: self.queryID, questions: questions).encoded() else {
                self.promise.succeed([])
                return
            }
            let envelope = AddressedEnvelope(
                remoteAddress: self.target, data: context.channel.allocator.buffer(bytes: bytes))
            context.writeAndFlush(Self.wrapOutboundOut(envelope), promise: nil)
        }
    }
}

extension AddressScope {
    /// Only `host` itself, the one address a host's own answers may give.
    init(onlyFor host: IPAddress) {
        switch host {
        case .v4(let v4):
            self.init(
                isLoopback: v4.bytes[0] == 127,
                subnets: [Subnet(address: v4, netmask: IPAddress.V4(0xFFFF_FFFF))])
        case .v6:
            self.init(isLoopback: false, subnets: [])
        }
    }
}
