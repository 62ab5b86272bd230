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
/// ``events()`` stream. Devices on networks that block multicast can be
/// added by address with ``addKnownHost(_:port:friendlyName:)``.
///
/// All work happens on one event loop of the group given. Sockets are
/// created on that loop's thread, so they live in that thread's network
/// namespace. Call ``stop()`` when done: until then the sockets and timers
/// keep the manager alive.
public final class DiscoveryManager: Sendable {
    private let eventLoop: any EventLoop
    private let runtime: NIOLoopBoundBox<DiscoveryRuntime>
    private let broadcaster: DeviceListBroadcaster

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
        self.runtime = NIOLoopBoundBox.makeBoxSendingValue(
            DiscoveryRuntime(
                configuration: configuration,
                eventLoop: eventLoop,
                broadcaster: broadcaster,
                logger: logger.makeLogger(subsystem: "Discovery")
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
    /// Without mDNS nothing but the address is known: the device's id is
    /// `host:port`, its name `friendlyName` or the address, its capabilities
    /// empty. When mDNS finds a device at the same address and port, that
    /// device stands in for the known host in the list.
    @discardableResult
    public func addKnownHost(_ address: IPAddress, port: Int = CastDevice.standardPort, friendlyName: String? = nil)
        async -> CastDevice
    {
        let device = CastDevice(
            id: Self.knownHostID(address, port: port),
            friendlyName: friendlyName ?? address.description,
            modelName: "",
            capabilities: [],
            status: .unknown(nil),
            addresses: [address],
            port: port,
            source: .knownHost
        )
        let runtime = self.runtime
        try? await self.eventLoop.submit { runtime.value.addKnownHost(device) }.get()
        return device
    }

    /// Removes a known host added with ``addKnownHost(_:port:friendlyName:)``.
    public func removeKnownHost(_ address: IPAddress, port: Int = CastDevice.standardPort) async {
        let id = Self.knownHostID(address, port: port)
        let runtime = self.runtime
        try? await self.eventLoop.submit { runtime.value.removeKnownHost(id: id) }.get()
    }

    /// Looks at the interfaces now rather than at the next poll: call it when
    /// the app learns the network changed.
    public func refreshInterfaces() async {
        let runtime = self.runtime
        _ = try? await self.eventLoop.flatSubmit { runtime.value.pollInterfaces() }.get()
    }

    private static func knownHostID(_ address: IPAddress, port: Int) -> String {
        switch address {
        case .v4: "\(address):\(port)"
        case .v6: "[\(address)]:\(port)"
        }
    }

    private func makeReceiver() -> MDNSSocket.Receiver {
        let runtime = self.runtime
        return { message, source, interfaceIndex in
            runtime.value.receive(message, from: source, interfaceIndex: interfaceIndex)
        }
    }
}
