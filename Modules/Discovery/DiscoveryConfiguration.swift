/// How ``DiscoveryManager`` browses.
public struct DiscoveryConfiguration: Sendable {
    /// The interfaces to query on; by default every up, multicast-capable, non-loopback one.
    public var interfaces: InterfaceSelection
    /// IPv4, IPv6 or both.
    public var addressFamilies: AddressFamilies
    /// The scan mode discovery starts in.
    public var scanMode: ScanMode
    /// The longest interval between queries in ``ScanMode/active``.
    public var activeMaximumQueryInterval: Duration
    /// The longest interval between queries in ``ScanMode/passive`` (RFC 6762 suggests an hour).
    public var passiveMaximumQueryInterval: Duration
    /// How often to look for interfaces coming up or going down, besides the kernel's
    /// notices (rtnetlink), which bring a change at once.
    public var interfacePollInterval: Duration
    /// Which devices the list shows.
    public var filter: DeviceFilter
    /// The UDP port; 5353 everywhere but in isolated tests.
    public var port: Int
    /// Where devices found are remembered, and whose addresses are asked by unicast at
    /// start; `nil` (the default) remembers nothing.
    public var deviceCache: DeviceCache?
    /// How often a device found by unicast (a scan, a cached address) is asked again at
    /// its address. One that answers neither of two asks in a row is lost as
    /// ``DiscoveryEvent/LossReason/expired``: at the default, by the time its records'
    /// 120 s TTL runs out, as an mDNS device whose records expire. At least 100 ms.
    public var unicastRefreshInterval: Duration

    /// Creates a configuration; the defaults suit an app on a home network.
    public init(
        interfaces: InterfaceSelection = .automatic(),
        addressFamilies: AddressFamilies = .all,
        scanMode: ScanMode = .active,
        activeMaximumQueryInterval: Duration = .seconds(20),
        passiveMaximumQueryInterval: Duration = .seconds(3600),
        interfacePollInterval: Duration = .seconds(30),
        filter: DeviceFilter = DeviceFilter(),
        port: Int = 5353,
        deviceCache: DeviceCache? = nil,
        unicastRefreshInterval: Duration = .seconds(60)
    ) {
        self.interfaces = interfaces
        self.addressFamilies = addressFamilies
        self.scanMode = scanMode
        self.activeMaximumQueryInterval = activeMaximumQueryInterval
        self.passiveMaximumQueryInterval = passiveMaximumQueryInterval
        self.interfacePollInterval = interfacePollInterval
        self.filter = filter
        self.port = port
        self.deviceCache = deviceCache
        self.unicastRefreshInterval = unicastRefreshInterval
    }
}
