#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A network interface as `getifaddrs(3)` describes it, addresses grouped.
@_spi(Receiver) public struct NetworkInterface: Hashable, Sendable, CustomStringConvertible {
    /// The interface name, such as `eth0`.
    @_spi(Receiver) public var name: String
    /// The kernel's interface index.
    @_spi(Receiver) public var index: Int
    /// Administratively up (`IFF_UP`).
    @_spi(Receiver) public var isUp: Bool
    /// Operationally up, a carrier present (`IFF_RUNNING`).
    @_spi(Receiver) public var isRunning: Bool
    /// The loopback interface (`IFF_LOOPBACK`).
    @_spi(Receiver) public var isLoopback: Bool
    /// Supports multicast (`IFF_MULTICAST`).
    @_spi(Receiver) public var supportsMulticast: Bool
    /// The IPv4 addresses assigned.
    @_spi(Receiver) public var ipv4Addresses: [IPAddress.V4]
    /// The IPv6 addresses assigned, link-local ones zoned to this interface.
    @_spi(Receiver) public var ipv6Addresses: [IPAddress.V6]
    /// The IPv4 subnets (address and netmask) assigned.
    var ipv4Subnets: [AddressScope.Subnet] = []

    /// What device addresses heard on this interface may be.
    var addressScope: AddressScope {
        AddressScope(isLoopback: self.isLoopback, subnets: self.ipv4Subnets)
    }

    @_spi(Receiver) public var description: String {
        "\(self.name)#\(self.index)"
    }

    /// Every interface of the calling thread's network namespace, by index.
    @_spi(Receiver) public static func all() -> [NetworkInterface] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        var byName: [String: NetworkInterface] = [:]
        var order: [String] = []
        for pointer in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let entry = pointer.pointee
            let name = String(cString: entry.ifa_name)
            let flags = Int32(bitPattern: entry.ifa_flags)
            if byName[name] == nil {
                order.append(name)
                byName[name] = NetworkInterface(
                    name: name,
                    index: Int(if_nametoindex(entry.ifa_name)),
                    isUp: flags & Int32(IFF_UP) != 0,
                    isRunning: flags & Int32(IFF_RUNNING) != 0,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                    supportsMulticast: flags & Int32(IFF_MULTICAST) != 0,
                    ipv4Addresses: [],
                    ipv6Addresses: []
                )
            }
            guard let address = entry.ifa_addr else { continue }
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if let parsed = withUnsafeBytes(of: v4, { IPAddress.V4(bytes: $0) }) {
                    byName[name]?.ipv4Addresses.append(parsed)
                    let mask = entry.ifa_netmask.map { netmask in
                        netmask.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    }
                    if let mask, let netmask = withUnsafeBytes(of: mask, { IPAddress.V4(bytes: $0) }) {
                        byName[name]?.ipv4Subnets.append(AddressScope.Subnet(address: parsed, netmask: netmask))
                    }
                }
            case AF_INET6:
                let v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                if let parsed = withUnsafeBytes(of: v6, { IPAddress.V6(bytes: $0) }) {
                    byName[name]?.ipv6Addresses.append(parsed.isLinkLocal ? parsed.inZone(name) : parsed)
                }
            default:
                break
            }
        }
        return order.compactMap { byName[$0] }.filter { $0.index > 0 }
    }
}

/// Which interfaces mDNS uses.
public enum InterfaceSelection: Hashable, Sendable {
    /// Every interface that is up, running and multicast-capable; loopback only when asked for.
    case automatic(includingLoopback: Bool = false)
    /// Only the loopback interface: the device and the sender on one machine.
    case loopbackOnly
    /// The named interfaces, while they are up and running.
    case named(Set<String>)

    /// Whether `interface` is selected now.
    @_spi(Receiver) public func includes(_ interface: NetworkInterface) -> Bool {
        guard interface.isUp, interface.isRunning || interface.isLoopback else { return false }
        switch self {
        case .automatic(let includingLoopback):
            return interface.isLoopback ? includingLoopback : interface.supportsMulticast
        case .loopbackOnly:
            return interface.isLoopback
        case .named(let names):
            return names.contains(interface.name)
        }
    }
}

/// The IP versions mDNS runs over.
public struct AddressFamilies: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    /// Creates a set from its bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// IPv4: group 224.0.0.251.
    public static let ipv4 = AddressFamilies(rawValue: 1 << 0)
    /// IPv6: group ff02::fb.
    public static let ipv6 = AddressFamilies(rawValue: 1 << 1)
    /// Both.
    public static let all: AddressFamilies = [.ipv4, .ipv6]
}
