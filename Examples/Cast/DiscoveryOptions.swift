import ArgumentParser
import CastKit

/// Where discovery looks: the options `cast discover` and `--device NAME` share.
///
/// Discovery multicasts on every selected interface. On a shared machine,
/// select loopback or run inside a network namespace.
struct DiscoveryOptions: ParsableArguments {
    @Option(name: .customLong("interface"), help: "Browse on this interface (repeat for more; default: all up).")
    var interfaces: [String] = []

    @Flag(help: "Browse on loopback too (alone if no --interface).")
    var loopback = false

    @Flag(help: "IPv4 only.") var ipv4 = false
    @Flag(help: "IPv6 only.") var ipv6 = false

    @Flag(help: "Query rarely and mostly listen (RFC 6762 passive mode).")
    var passive = false

    func validate() throws {
        guard !(self.ipv4 && self.ipv6) else { throw ValidationError("--ipv4 and --ipv6 exclude each other") }
    }

    /// The discovery configuration these options ask for.
    var configuration: DiscoveryConfiguration {
        let selection: InterfaceSelection =
            self.interfaces.isEmpty
            ? (self.loopback ? .loopbackOnly : .automatic())
            : .named(Set(self.interfaces).union(self.loopback ? ["lo"] : []))
        return DiscoveryConfiguration(
            interfaces: selection, addressFamilies: self.ipv4 ? .ipv4 : self.ipv6 ? .ipv6 : .all,
            scanMode: self.passive ? .passive : .active, deviceCache: Self.deviceCache)
    }

    /// The devices `cast` has seen: `$XDG_CACHE_HOME/cast/devices.json`. Discovery asks each
    /// one's last address by unicast as it starts, so `--device NAME` reaches a device seen
    /// before without waiting for mDNS, and even where multicast does not pass.
    static var deviceCache: DeviceCache {
        DeviceCache(fileURL: XDGDirectory.cache.file("devices.json", application: "cast"))
    }
}
