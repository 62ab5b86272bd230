import ArgumentParser
import CastKit

/// Devices by address, for networks where multicast does not pass, and how
/// far they must prove they are genuine: the options of the commands that
/// follow every device (`cast ui`, `cast tray`, `cast speakers`).
struct KnownHostOptions: ParsableArguments {
    // --device, as every command that talks to a device; --host, its earlier name, still works.
    @Option(
        name: [.customLong("device"), .customLong("host")],
        help: ArgumentHelp(
            "A device at this address (HOST, HOST:PORT, [IPv6]:PORT), for networks without multicast; repeat.",
            valueName: "address"))
    var hosts: [String] = []

    @Flag(help: "Look only at --device addresses; send no multicast.") var noMdns = false

    @OptionGroup(title: "Device trust") var trust: TrustOptions

    func validate() throws {
        for host in self.hosts where CastDeviceAddress(host) == nil {
            throw ValidationError("--device takes HOST, HOST:PORT or [IPv6]:PORT with an IP address, not \(host)")
        }
    }

    /// The SDK's options of a command that follows every device: passive
    /// discovery as `discovery` says (none with `--no-mdns`), the device
    /// trust asked for, and the app its sessions launch.
    func castOptions(
        application: String = CastApplicationID.defaultMediaReceiver, discovery: DiscoveryConfiguration, verbose: Bool
    ) throws -> CastOptions {
        var options = CastOptions(
            receiverApplicationID: application, logger: DeviceOptions.makeLogger(verbose: verbose))
        options.discovery = discovery
        options.discovery.scanMode = .passive
        options.deviceAuthentication = try self.trust.policy()
        self.restrict(&options.discovery)
        return options
    }

    /// `configuration` on no interface at all with `--no-mdns`.
    func restrict(_ configuration: inout DiscoveryConfiguration) {
        if self.noMdns { configuration.interfaces = .named([]) }
    }

    /// Adds each `--device` to `discovery` as a known host.
    func add(to discovery: DiscoveryManager) async {
        for host in self.hosts {
            guard let known = CastDeviceAddress(host) else { continue }
            await discovery.addKnownHost(known.address, port: known.port)
        }
    }
}
