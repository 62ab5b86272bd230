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
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let printed = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard printed == 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
