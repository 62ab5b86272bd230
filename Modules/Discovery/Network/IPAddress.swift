#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address a Cast device was found at.
///
/// IPv6 link-local addresses (`fe80::/10`) carry the zone — the interface
/// they were seen on — since they mean nothing without it:
/// `fe80::1%eth0`.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address.
    case v4(V4)
    /// An IPv6 address.
    case v6(V6)

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text, with an optional `%zone`
    /// on IPv6; `nil` when `text` is neither.
    public init?(_ text: String) {
        if let v4 = V4(text) {
            self = .v4(v4)
        } else if let v6 = V6(text) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// Whether this is an IPv4 address (connections try these first: most
    /// devices answer on IPv4 and IPv6 link-local needs its zone).
    public var isV4: Bool {
        if case .v4 = self { return true }
        return false
    }

    /// The address as text: `192.168.1.20`, `fd00::20`, `fe80::1%eth0`.
    public var description: String {
        switch self {
        case .v4(let address): address.description
        case .v6(let address): address.description
        }
    }

    /// An IPv4 address.
    public struct V4: Hashable, Sendable, CustomStringConvertible {
        /// The four bytes in network order.
        public let bytes: [UInt8]

        /// Creates an address from its four bytes in network order; `nil` unless there are exactly four.
        public init?(bytes: some Collection<UInt8>) {
            guard bytes.count == 4 else { return nil }
            self.bytes = Array(bytes)
        }

        /// The address whose bytes in network order are `value`'s, most significant first.
        init(_ value: UInt32) {
            self.bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        }

        /// The address as a number, the first byte most significant.
        var value: UInt32 { self.bytes.reduce(0) { $0 << 8 | UInt32($1) } }

        /// Parses dotted-quad text such as `192.168.1.20`.
        public init?(_ text: String) {
            var address = in_addr()
            guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
            self.bytes = withUnsafeBytes(of: &address) { Array($0) }
        }

        /// Dotted-quad text.
        public var description: String {
            self.bytes.map(String.init).joined(separator: ".")
        }
    }

    /// An IPv6 address, with its zone when it is link-local.
    public struct V6: Hashable, Sendable, CustomStringConvertible {
        /// The sixteen bytes in network order.
        public let bytes: [UInt8]
        /// The interface name a link-local address belongs to, if known.
        public let zone: String?

        /// Creates an address from its sixteen bytes in network order; `nil` unless there are exactly sixteen.
        public init?(bytes: some Collection<UInt8>, zone: String? = nil) {
            guard bytes.count == 16 else { return nil }
            self.bytes = Array(bytes)
            self.zone = zone
        }

        /// Parses RFC 4291 text with an optional `%zone`, such as `fe80::1%eth0`;
        /// `nil` when the zone cannot be an interface's name (``isInterfaceName(_:)``).
        public init?(_ text: String) {
            let parts = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            var address = in6_addr()
            guard inet_pton(AF_INET6, String(parts[0]), &address) == 1 else { return nil }
            let zone = parts.count == 2 ? parts[1] : ""
            guard zone.isEmpty || Self.isInterfaceName(zone) else { return nil }
            self.bytes = withUnsafeBytes(of: &address) { Array($0) }
            self.zone = zone.isEmpty ? nil : String(zone)
        }

        /// Whether `name` can be a network interface's: 1…15 bytes (Linux's
        /// `IFNAMSIZ` less its NUL) of printable ASCII without `/`, `:`,
        /// `%`, brackets or spaces (Linux's `dev_valid_name` refuses `/`,
        /// `:` and white space; RFC 6874 puts a zone inside `[…]`).
        public static func isInterfaceName(_ name: Substring) -> Bool {
            (1...15).contains(name.utf8.count)
                && name.utf8.allSatisfy { (0x21...0x7E).contains($0) && !"/:%[]".utf8.contains($0) }
        }

        /// Whether the address is link-local unicast, `fe80::/10`.
        public var isLinkLocal: Bool {
            self.bytes[0] == 0xFE && self.bytes[1] & 0xC0 == 0x80
        }

        /// The same address with `zone`.
        public func inZone(_ zone: String?) -> V6 {
            V6(validBytes: self.bytes, zone: zone)
        }

        /// RFC 5952 text, with `%zone` when there is one.
        public var description: String {
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: self.bytes) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let formatted = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil
            let base =
                formatted ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            return self.zone.map { "\(base)%\($0)" } ?? base
        }

        private init(validBytes: [UInt8], zone: String?) {
            self.bytes = validBytes
            self.zone = zone
        }
    }
}
