/// An IPv4 network in CIDR notation, such as `192.168.1.0/24`: the range a
/// subnet scan probes.
public struct IPv4Network: Hashable, Sendable, CustomStringConvertible {
    /// The network's first address (the host bits of the text are cleared).
    public let address: IPAddress.V4
    /// The number of leading bits that name the network, 0–32.
    public let prefixLength: Int

    /// The shortest prefix a scan takes: a /16 is 65 534 hosts.
    public static let shortestScannablePrefix = 16

    /// Parses `A.B.C.D/N` (or a bare address, a /32); `nil` when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress.V4(String(parts[0])) else { return nil }
        var prefix = 32
        if parts.count == 2 {
            guard parts[1].count <= 2, parts[1].allSatisfy(\.isASCII), let value = Int(parts[1]),
                (0...32).contains(value)
            else { return nil }
            prefix = value
        }
        self.init(address: address, prefixLength: prefix)
    }

    /// The network of `address` with `prefixLength` bits (clamped to 0–32).
    public init(address: IPAddress.V4, prefixLength: Int) {
        let prefix = min(max(prefixLength, 0), 32)
        let mask: UInt32 = prefix == 0 ? 0 : ~UInt32(0) << (32 - prefix)
        self.address = IPAddress.V4(address.value & mask)
        self.prefixLength = prefix
    }

    /// The addresses a device can have: every one but the network and broadcast
    /// addresses, except in a /31 or /32 (RFC 3021), where every address is a host.
    public var hosts: [IPAddress.V4] {
        let first = self.address.value
        let count = UInt64(1) << (32 - self.prefixLength)
        let range: Range<UInt64> = count <= 2 ? 0..<count : 1..<(count - 1)
        return range.map { IPAddress.V4(first &+ UInt32($0)) }
    }

    /// `192.168.1.0/24`.
    public var description: String { "\(self.address)/\(self.prefixLength)" }
}
