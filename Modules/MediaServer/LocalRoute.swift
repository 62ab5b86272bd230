#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The local address this machine would use to reach a host: the source
/// address of the route toward it, asked of the kernel by connecting a UDP
/// socket (which sends nothing) and reading the socket's own address. The
/// address the control connection to a device uses, so a device reaches a
/// server bound there.
enum LocalRoute {
    /// The local address toward `host` (a numeric IPv4 or IPv6 address, or
    /// `localhost`), or `nil` when there is no route. Names are not looked
    /// up: devices are reached by address, and a lookup would leave the machine.
    static func address(toward host: String) -> String? {
        let host = host == "localhost" ? "127.0.0.1" : host
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, "9", &hints, &found) == 0, let info = found else { return nil }
        defer { freeaddrinfo(found) }
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return nil }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        return withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.numericHost($0, length: length) }
        }
    }

    /// `address` as digits (`10.0.0.2`, `fd00::1`); `nil` when it is not one getnameinfo prints.
    private static func numericHost(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> String? {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This machine's interfaces that are up, loopback aside, each with its
    /// addresses (IPv4, then IPv6): what a failure names as tried.
    static func interfaces() -> [(name: String, addresses: [String])] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var found: [(name: String, addresses: [String])] = []
        var entry = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(bitPattern: current.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = current.pointee.ifa_addr,
                [Int32(AF_INET), Int32(AF_INET6)].contains(Int32(address.pointee.sa_family))
            else { continue }
            let length = socklen_t(
                address.pointee.sa_family == sa_family_t(AF_INET)
                    ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard let printed = Self.numericHost(address, length: length) else { continue }
            let name = String(cString: current.pointee.ifa_name)
            if let index = found.firstIndex(where: { $0.name == name }) {
                found[index].addresses.append(printed)
            } else {
                found.append((name, [printed]))
            }
        }
        return found.map { ($0.name, $0.addresses.sorted { !$0.contains(":") && $1.contains(":") }) }
    }

    /// Why no address serves a device at `host`, in one sentence naming the interfaces there are.
    static func unreachable(_ host: String) -> String {
        let interfaces = Self.interfaces()
        guard !interfaces.isEmpty else {
            return "no local address routes toward \(host): this machine has no network interface up"
        }
        let listed = interfaces.map { "\($0.name) (\($0.addresses.joined(separator: ", ")))" }.joined(separator: ", ")
        return "no local address routes toward \(host); this machine's interfaces are \(listed)"
    }
}
