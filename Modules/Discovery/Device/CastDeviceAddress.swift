/// Where a Cast device listens, as a person types it: `192.168.1.20`,
/// `192.168.1.20:8009`, `[fd00::20]:8010`, a bare IPv6 address, or
/// `localhost`.
///
/// An app that takes a device from its user (a command line, a settings
/// field) parses it with ``init(_:)``; ``DiscoveryManager/device(_:configuration:within:logger:)``
/// takes either this or a device's name.
public struct CastDeviceAddress: Hashable, Sendable, LosslessStringConvertible {
    /// The port Cast devices listen on when none is given: 8009.
    public static let defaultPort = 8_009

    /// The device's IP address.
    public let address: IPAddress
    /// The device's port, 1…65535.
    public let port: Int

    /// An address and port; `nil` when the port is not 1…65535.
    public init?(_ address: IPAddress, port: Int = Self.defaultPort) {
        guard (1...65_535).contains(port) else { return nil }
        self.address = address
        self.port = port
    }

    /// Parses `HOST`, `HOST:PORT`, `[IPv6]:PORT` or a bare IPv6 address
    /// (with its `%zone`), where HOST is an IP address or `localhost`
    /// (127.0.0.1); the port is ``defaultPort`` when left out. `nil` for
    /// anything else: a name, a malformed port, a port outside 1…65535.
    public init?(_ description: String) {
        guard let (host, port) = Self.split(Substring(description)) else { return nil }
        let address = host == "localhost" ? IPAddress("127.0.0.1") : IPAddress(String(host))
        guard let address else { return nil }
        self.init(address, port: port)
    }

    /// Whether `text` has the shape of an address with a port or an IPv6
    /// address (a colon or brackets), so that it cannot be a device's name
    /// mistyped as one: `host:port` is a malformed address, not a name.
    public static func looksLikeAddress(_ text: String) -> Bool {
        text.contains(":") || text.hasPrefix("[")
    }

    /// `192.168.1.20:8009`, `[fd00::20]:8009`.
    public var description: String {
        self.address.isV4 ? "\(self.address):\(self.port)" : "[\(self.address)]:\(self.port)"
    }

    /// The host text and the port of `text`; `nil` when it has no host or a malformed port.
    private static func split(_ text: Substring) -> (host: Substring, port: Int)? {
        var host = text
        var port = Self.defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { return nil }
                port = value
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { return nil }
            port = value
            host = host[..<colon]
        }
        return host.isEmpty ? nil : (host, port)
    }
}

extension CastDevice {
    /// A device known by its address alone (``init(knownHost:port:)``).
    public init(knownHost address: CastDeviceAddress) {
        self.init(knownHost: address.address, port: address.port)
    }
}
