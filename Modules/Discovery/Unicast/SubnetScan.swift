import Logging
import NIOCore
import NIOPosix

/// How ``DiscoveryManager/scan(_:configuration:)`` probes a range.
public struct SubnetScanConfiguration: Sendable {
    /// The Cast port probed on each host.
    public var port: Int
    /// How many hosts are probed at once.
    public var concurrency: Int
    /// How long a host has to accept the TCP connection.
    public var connectTimeout: Duration
    /// How long a host whose port is open has to answer the unicast DNS-SD query.
    public var queryTimeout: Duration
    /// When the whole scan ends, whatever is left: hosts not yet probed are not reported.
    public var deadline: Duration

    /// Creates a configuration; the defaults scan a /24 on a home network in about 2 s.
    public init(
        port: Int = CastDevice.standardPort, concurrency: Int = 64, connectTimeout: Duration = .milliseconds(500),
        queryTimeout: Duration = .seconds(1), deadline: Duration = .seconds(60)
    ) {
        self.port = port
        self.concurrency = concurrency
        self.connectTimeout = connectTimeout
        self.queryTimeout = queryTimeout
        self.deadline = deadline
    }
}

/// The probe of one range, host by host: a TCP connection to the Cast port
/// (a closed port or a missing host ends it there), then the host's own
/// DNS-SD records by unicast (``UnicastQuery``), which give its id, name,
/// model and capabilities — and any group it leads — exactly as mDNS would.
/// A host whose port is open but that does not answer DNS-SD is reported by
/// its address alone, as a known host is.
///
/// A receiver's GET_STATUS over TLS would confirm a Cast device too, but it
/// carries no name, model or id, and costs a TLS handshake per host; the
/// device's DNS-SD answer carries all three.
struct SubnetScan {
    let configuration: SubnetScanConfiguration
    let eventLoop: any EventLoop
    let logger: Logger
    /// The clock of the scan's ``SubnetScanConfiguration/deadline``.
    var clock: any Clock<Duration> = ContinuousClock()

    /// Probes every host of `network` (at most `concurrency` at once) and hands
    /// each host's devices to `found` as they come; returns them all.
    func run(_ network: IPv4Network, found: @escaping @Sendable ([CastDevice]) async -> Void) async -> [CastDevice] {
        await self.run(network, probing: { host in (try? await self.probe(host).get()) ?? [] }, found: found)
    }

    /// Asks `probing` for each host's devices instead of the network (tests
    /// of the schedule, at virtual time): hosts start in order while the
    /// deadline has not passed on ``clock``.
    func run(
        _ network: IPv4Network, probing: @escaping @Sendable (IPAddress.V4) async -> [CastDevice],
        found: @escaping @Sendable ([CastDevice]) async -> Void
    ) async -> [CastDevice] {
        await Self.run(
            network.hosts, concurrency: self.configuration.concurrency, deadline: self.configuration.deadline,
            clock: self.clock, probing: probing, found: found)
    }

    private static func run<C: Clock<Duration>>(
        _ hosts: [IPAddress.V4], concurrency: Int, deadline duration: Duration, clock: C,
        probing: @escaping @Sendable (IPAddress.V4) async -> [CastDevice],
        found: @escaping @Sendable ([CastDevice]) async -> Void
    ) async -> [CastDevice] {
        let deadline = clock.now.advanced(by: duration)
        return await withTaskGroup(of: [CastDevice].self) { group in
            var next = 0
            var all: [CastDevice] = []
            func startNext() {
                guard next < hosts.count, clock.now < deadline else { return }
                let host = hosts[next]
                next += 1
                group.addTask {
                    let devices = await probing(host)
                    if !devices.isEmpty { await found(devices) }
                    return devices
                }
            }
            for _ in 0..<max(1, concurrency) { startNext() }
            while let devices = await group.next() {
                all += devices
                startNext()
            }
            return all
        }
    }

    /// The devices at `host`: none when its Cast port does not accept a connection in time;
    /// the device by its address alone when the port is open but nothing answers DNS-SD.
    func probe(_ host: IPAddress.V4) -> EventLoopFuture<[CastDevice]> {
        let port = self.configuration.port
        let eventLoop = self.eventLoop
        let queryTimeout = TimeAmount(self.configuration.queryTimeout)
        let logger = self.logger
        return self.isOpen(host, port: port).flatMap { isOpen in
            guard isOpen else { return eventLoop.makeSucceededFuture([]) }
            return UnicastQuery.devices(at: .v4(host), eventLoop: eventLoop, timeout: queryTimeout, logger: logger)
                .map { answered in
                    guard answered.isEmpty else { return answered }
                    logger.debug("Cast port open, no DNS-SD answer", metadata: ["cast.host": "\(host):\(port)"])
                    return [CastDevice(addressOnly: .v4(host), port: port, source: .unicast)]
                }
        }
    }

    private func isOpen(_ host: IPAddress.V4, port: Int) -> EventLoopFuture<Bool> {
        let eventLoop = self.eventLoop
        let timeout = TimeAmount(self.configuration.connectTimeout)
        // Created on the loop's thread, so the socket is in that thread's network namespace.
        return eventLoop.flatSubmit {
            guard let address = try? SocketAddress(ipAddress: host.description, port: port) else {
                return eventLoop.makeSucceededFuture(false)
            }
            return ClientBootstrap(group: eventLoop)
                .connectTimeout(timeout)
                .connect(to: address)
                .flatMap { channel in channel.close().map { true } }
                .recover { _ in false }
        }
    }
}

extension CastDevice {
    /// A device known by its address alone: id `host:port`, the address as its name, nothing else.
    init(addressOnly address: IPAddress, port: Int, source: Source) {
        let id =
            switch address {
            case .v4: "\(address):\(port)"
            case .v6: "[\(address)]:\(port)"
            }
        self.init(
            id: id, friendlyName: address.description, modelName: "", capabilities: [], status: .unknown(nil),
            addresses: [address], port: port, source: source)
    }
}
