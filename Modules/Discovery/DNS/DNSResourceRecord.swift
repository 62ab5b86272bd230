/// One resource record (RFC 1035 §4.1.3), class IN.
///
/// mDNS reuses the top bit of the class as the cache-flush bit: this record
/// replaces every other record of its name and type (RFC 6762 §10.2).
@_spi(Receiver) public struct DNSResourceRecord: Hashable, Sendable {
    /// The name the record belongs to.
    @_spi(Receiver) public var name: DNSName
    /// How long, in seconds, the record may be cached; 0 is a goodbye (RFC 6762 §10.1).
    @_spi(Receiver) public var ttl: UInt32
    /// Whether the record replaces the cached records of its name and type.
    @_spi(Receiver) public var isCacheFlush: Bool
    /// The record's data, which also gives its type.
    @_spi(Receiver) public var data: DNSRecordData

    /// Creates a record.
    @_spi(Receiver) public init(name: DNSName, ttl: UInt32, isCacheFlush: Bool = false, data: DNSRecordData) {
        self.name = name
        self.ttl = ttl
        self.isCacheFlush = isCacheFlush
        self.data = data
    }

    /// The record's type.
    @_spi(Receiver) public var type: DNSRecordType { self.data.type }

    /// The same record with another TTL.
    @_spi(Receiver) public func withTTL(_ ttl: UInt32) -> DNSResourceRecord {
        var copy = self
        copy.ttl = ttl
        return copy
    }
}

/// The data of a resource record, by type.
@_spi(Receiver) public enum DNSRecordData: Hashable, Sendable {
    /// An IPv4 address, 4 bytes in network order.
    case a(IPAddress.V4)
    /// An IPv6 address, 16 bytes in network order.
    case aaaa(IPAddress.V6)
    /// A pointer to another name.
    case ptr(DNSName)
    /// A service location: priority, weight, port and target host (RFC 2782).
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// Character strings, each at most 255 bytes.
    case txt([[UInt8]])
    /// The next name and the types present at the record's name (RFC 4034 §4.1).
    case nsec(next: DNSName, types: Set<DNSRecordType>)
    /// Any other type, kept as raw bytes; names inside are not decompressed.
    case other(type: DNSRecordType, bytes: [UInt8])

    /// The record type this data belongs to.
    @_spi(Receiver) public var type: DNSRecordType {
        switch self {
        case .a: .a
        case .aaaa: .aaaa
        case .ptr: .ptr
        case .srv: .srv
        case .txt: .txt
        case .nsec: .nsec
        case .other(let type, _): type
        }
    }
}
