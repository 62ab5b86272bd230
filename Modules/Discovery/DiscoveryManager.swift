import CastCommon
public import CastLogging
import Logging
public import NIOCore
public import NIOPosix

/// Finds Cast devices on the local network with mDNS/DNS-SD, as the SDK's
/// discovery manager does.
///
/// ```swift
/// let discovery = DiscoveryManager()
/// try await discovery.start()
/// for await event in discovery.events() {
///     if case .found(let device) = event { print(device) }
/// }
/// ```
///
/// Discovery browses `_googlecast._tcp.local` on the selected interfaces
/// (see ``DiscoveryConfiguration``), keeps ``devices`` sorted by friendly
/// name, and reports each change as a ``DiscoveryEvent`` to every
/// ``events()`` stream. Where multicast does not pass (a router that drops
/// it, another subnet or VLAN, a container), devices are found by unicast:
/// ``scan(_:configuration:)`` probes a range, ``addKnownHost(_:port:friendlyName:)``
/// adds one address, and a ``DeviceCache`` brings back the addresses of
/// devices seen before. Each asks the device's own mDNS responder by
/// unicast DNS-SD (RFC 6762 §6.7) for its records, so such devices carry
/// the same id, name and model as mDNS would give. Interfaces coming and
/// going are noticed at once through rtnetlink.
///
/// All work happens on one event loop of the group given. Sockets are
/// created on that loop's thread, so they live in that thread's network
/// namespace. Call ``stop()`` when done: until then the sockets and timers
/// keep the manager alive.
public final class DiscoveryManager: Sendable {
    private let eventLoop: any EventLoop
    private let runtime: NIOLoopBoundBox<DiscoveryRuntime>
    private let broadcaster: DeviceListBroadcaster
    private let interfaces = EventBroadcaster<[String]>(initial: [])
    private let logger: Logger

    /// Creates a manager; it does nothing until ``start()``.
    public init(
        configuration: DiscoveryConfiguration = DiscoveryConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: CastLogger = .shared
    ) {
        let eventLoop = eventLoopGroup.next()
        let broadcaster = DeviceListBroadcaster()
        self.eventLoop = eventLoop
        self.broadcaster = broadcaster
        self.logger = logger.makeLogger(subsystem: "Discovery")
        self.runtime = NIOLoopBoundBox.makeBoxSendingValue(
            DiscoveryRuntime(
                configuration: configuration,
                eventLoop: eventLoop,
                broadcaster: broadcaster,
                interfaces: self.interfaces,
                logger: self.logger
            ),
            as: DiscoveryRuntime.self,
            eventLoop: eventLoop
        )
    }

    /// The devices found and the known hosts, those that pass the filter, sorted by friendly name.
    public var devices: [CastDevice] {
        self.broadcaster.devices
    }

    /// A stream of device changes: first `found` for every device already
    /// listed, then each change as it happens. Each call gives a new,
    /// independent stream; it ends when the consuming task is cancelled or
    /// the manager is released.
    public func events() -> AsyncStream<DiscoveryEvent> {
        self.broadcaster.subscribe()
    }

    /// Opens mDNS sockets on the selected interfaces and starts querying.
    ///
    /// Throws ``DiscoveryError/Code/alreadyStarted`` while running, and
    /// ``DiscoveryError/Code/socketFailed`` when interfaces were selected but
    /// none could be opened. Zero selected interfaces is not an error:
    /// discovery waits for one to come up.
    public func start() async throws(DiscoveryError) {
        let runtime = self.runtime
        let started = self.eventLoop.flatSubmit { runtime.value.start(receiver: self.makeReceiver()) }
        do {
            try await started.get()
        } catch let error as DiscoveryError {
            throw error
        } catch {
            throw DiscoveryError(.socketFailed, "\(error)")
        }
    }

    /// Stops querying and closes the sockets. Every listed device is reported
    /// lost with ``DiscoveryEvent/LossReason/stopped``, except known hosts, which stay.
    public func stop() async {
        let runtime = self.runtime
        try? await self.eventLoop.flatSubmit { runtime.value.stop() }.get()
    }

    /// The interfaces discovery queries on now: those selected that are up
    /// and whose mDNS socket opened. Empty before ``start()``, and while no
    /// selected interface is up — a device chooser's "no network" diagnosis.
    public var queriedInterfaces: [String] {
        get async {
            let runtime = self.runtime
            return (try? await self.eventLoop.submit { runtime.value.queriedInterfaces }.get()) ?? []
        }
    }

    /// The interfaces discovery queries on (``queriedInterfaces``) now, then
    /// each time they change: an interface comes up or goes down, discovery
    /// starts or stops. Empty means no device can be found now — where the
    /// SDK hides its Cast button. Each call gives a new, independent stream.
    public func interfaceUpdates() -> AsyncStream<[String]> {
        self.interfaces.subscribe()
    }

    /// The scan mode in use, or the one ``start()`` begins in.
    public var scanMode: ScanMode {
        get async {
            let runtime = self.runtime
            return (try? await self.eventLoop.submit { runtime.value.configuration.scanMode }.get())
                ?? .passive
        }
    }

    /// Switches between active and passive scanning, now and for later
    /// starts; see ``ScanMode``.
    public func setScanMode(_ mode: ScanMode) async {
        let runtime = self.runtime
        try? await self.eventLoop.submit { runtime.value.setScanMode(mode) }.get()
    }

    /// Replaces the filter; devices it now excludes are reported lost, those it now admits found.
    public func setFilter(_ filter: DeviceFilter) async {
        let runtime = self.runtime
        try? await self.eventLoop.submit { runtime.value.setFilter(filter) }.get()
    }

    /// Adds a device by address, for networks where multicast does not pass.
    ///
    /// The device is listed at once by its address: its id is `host:port`,
    /// its name `friendlyName` or the address, its capabilities empty. Then
    /// the host is asked for its DNS-SD records by unicast
    /// (``queryHost(_:timeout:)``); when it answers, the entry is updated
    /// with its name, model and capabilities (an ``DiscoveryEvent/updated(_:changes:)``).
    /// When mDNS or a scan finds a device at the same address and port, that
    /// device stands in for the known host in the list.
    @discardableResult
    public func addKnownHost(_ address: IPAddress, port: Int = CastDevice.standardPort, friendlyName: String? = nil)
        async -> CastDevice
    {
        var device = CastDevice(addressOnly: address, port: port, source: .knownHost)
        if let friendlyName { device.friendlyName = friendlyName }
        let id = device.id
        let runtime = self.runtime
        let added = device
        try? await self.eventLoop.submit { runtime.value.addKnownHost(added) }.get()
        let logger = self.logger
        _ = UnicastQuery.devices(at: address, eventLoop: self.eventLoop, timeout: UnicastQuery.timeout, logger: logger)
            .hop(to: self.eventLoop).map { devices in
                runtime.value.resolveKnownHost(id: id, with: devices.filter { $0.port == port })
            }
        return device
    }

    /// Removes a known host added with ``addKnownHost(_:port:friendlyName:)``.
    public func removeKnownHost(_ address: IPAddress, port: Int = CastDevice.standardPort) async {
        let id = CastDevice(addressOnly: address, port: port, source: .knownHost).id
        let runtime = self.runtime
        try? await self.eventLoop.submit { runtime.value.removeKnownHost(id: id) }.get()
    }

    /// The Cast devices `host` describes in its own DNS-SD records, asked by
    /// unicast (RFC 6762 §6.7 legacy unicast, to its port 5353): usually one,
    /// more when it also leads speaker groups. Empty when it does not answer
    /// within `timeout`. Only devices at `host` itself are taken: a host
    /// speaks for itself, never for another machine. The devices are not
    /// listed; ``scan(_:configuration:)`` lists what it finds.
    public func queryHost(_ host: IPAddress, timeout: Duration = .seconds(1)) async -> [CastDevice] {
        (try? await UnicastQuery.devices(
            at: host, eventLoop: self.eventLoop, timeout: TimeAmount(timeout), logger: self.logger
        ).get()) ?? []
    }

    /// Probes every host of `network` for a Cast device, for networks where
    /// multicast does not arrive (go-chromecast's `scan --cidr`): a TCP
    /// connection to the Cast port, then the host's DNS-SD records by unicast
    /// (``queryHost(_:timeout:)``). Each device found is listed as it comes
    /// (source ``CastDevice/Source/unicast``, reported by ``events()`` like any
    /// other) and is asked again every ``DiscoveryConfiguration/unicastRefreshInterval``
    /// until it stops answering; a host whose Cast port is open but that does
    /// not answer DNS-SD is listed by its address, and its port probed again. Returns every
    /// device found, sorted by friendly name. Works whether or not mDNS
    /// discovery was started. Throws ``DiscoveryError/Code/scanRangeTooLarge``
    /// for a range wider than a /16.
    public func scan(_ network: IPv4Network, configuration: SubnetScanConfiguration = SubnetScanConfiguration())
        async throws(DiscoveryError) -> [CastDevice]
    {
        guard network.prefixLength >= IPv4Network.shortestScannablePrefix else {
            throw DiscoveryError(
                .scanRangeTooLarge,
                "\(network) is wider than a /\(IPv4Network.shortestScannablePrefix) (65 534 hosts)")
        }
        let runtime = self.runtime
        let eventLoop = self.eventLoop
        self.logger.info("scanning", metadata: ["cast.range": "\(network)", "cast.port": "\(configuration.port)"])
        let scan = SubnetScan(configuration: configuration, eventLoop: eventLoop, logger: self.logger)
        let devices = await scan.run(network) { found in
            try? await eventLoop.submit { runtime.value.addUnicast(found) }.get()
        }
        self.logger.info("scan done", metadata: ["cast.range": "\(network)", "cast.devices": "\(devices.count)"])
        return devices.sorted(by: DiscoveryRuntime.listOrder)
    }

    /// Looks at the interfaces now rather than at the next poll: call it when
    /// the app learns the network changed.
    public func refreshInterfaces() async {
        let runtime = self.runtime
        _ = try? await self.eventLoop.flatSubmit { runtime.value.pollInterfaces() }.get()
    }

    private func makeReceiver() -> MDNSSocket.Receiver {
        let runtime = self.runtime
        return { message, source, interfaceIndex in
            runtime.value.receive(message, from: source, interfaceIndex: interfaceIndex)
        }
    }
}
