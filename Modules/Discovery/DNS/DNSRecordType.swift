/// A resource record type (RFC 1035 §3.2.2 and later RFCs), kept as its
/// 16-bit code so unknown types survive decoding.
@_spi(Receiver) public struct DNSRecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    @_spi(Receiver) public let rawValue: UInt16

    @_spi(Receiver) public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// An IPv4 host address (RFC 1035).
    @_spi(Receiver) public static let a = DNSRecordType(rawValue: 1)
    /// A pointer to another name; DNS-SD's service → instance link (RFC 6763 §4.1).
    @_spi(Receiver) public static let ptr = DNSRecordType(rawValue: 12)
    /// Text strings; DNS-SD's `key=value` attributes (RFC 6763 §6).
    @_spi(Receiver) public static let txt = DNSRecordType(rawValue: 16)
    /// An IPv6 host address (RFC 3596).
    @_spi(Receiver) public static let aaaa = DNSRecordType(rawValue: 28)
    /// A service's target host and port (RFC 2782).
    @_spi(Receiver) public static let srv = DNSRecordType(rawValue: 33)
    /// The types a name has, asserting the absence of others (RFC 4034 §4; RFC 6762 §6.1).
    @_spi(Receiver) public static let nsec = DNSRecordType(rawValue: 47)
    /// A question for every type a name has (RFC 1035 §3.2.3).
    @_spi(Receiver) public static let any = DNSRecordType(rawValue: 255)

    @_spi(Receiver) public var description: String {
        switch self {
        case .a: "A"
        case .ptr: "PTR"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .nsec: "NSEC"
        case .any: "ANY"
        default: "TYPE\(self.rawValue)"
        }
    }
}
