/// Which addresses a device record may point the sender at, heard on one
/// interface: a spoofed mDNS record must not aim the sender at the user's
/// own machine or at nowhere. Refused: unspecified addresses (`0.0.0.0/8`,
/// `::`), loopback (`127.0.0.0/8`, `::1`) unless the interface is loopback,
/// multicast (`224.0.0.0/4`, `ff00::/8`), broadcast (`255.255.255.255` and
/// the interface's subnet broadcast), and IPv4 addresses outside every
/// subnet of the interface when it has any (mDNS answers come from the link).
package struct AddressScope: Hashable, Sendable {
    /// One IPv4 subnet of the interface.
    package struct Subnet: Hashable, Sendable {
        var address: IPAddress.V4
        var netmask: IPAddress.V4

        /// The subnet of `address` under `netmask`.
        package init(address: IPAddress.V4, netmask: IPAddress.V4) {
            self.address = address
            self.netmask = netmask
        }

        func contains(_ other: IPAddress.V4) -> Bool {
            zip(zip(self.address.bytes, self.netmask.bytes), other.bytes).allSatisfy { pair, byte in
                pair.0 & pair.1 == byte & pair.1
            }
        }

        /// The subnet's broadcast address; `nil` for /31 and /32, which have none.
        var broadcast: IPAddress.V4? {
            guard self.netmask.bytes.reduce(0, { $0 + $1.nonzeroBitCount }) < 31 else { return nil }
            return IPAddress.V4(bytes: zip(self.address.bytes, self.netmask.bytes).map { $0 | ~$1 })
        }
    }

    var isLoopback: Bool
    var subnets: [Subnet]

    /// An interface's scope: whether it is loopback, and its IPv4 subnets.
    package init(isLoopback: Bool, subnets: [Subnet]) {
        self.isLoopback = isLoopback
        self.subnets = subnets
    }

    /// An interface about which nothing is known: only the address rules apply.
    static let unknown = AddressScope(isLoopback: false, subnets: [])

    /// Why `address` is refused on this interface, or `nil` when it is acceptable.
    func refusal(of address: IPAddress) -> String? {
        switch address {
        case .v4(let v4):
            let first = v4.bytes[0]
            if first == 0 { return "unspecified" }
            if first == 127 { return self.isLoopback ? nil : "loopback" }
            if first & 0xF0 == 0xE0 { return "multicast" }
            if v4.bytes == [255, 255, 255, 255] || self.subnets.contains(where: { $0.broadcast == v4 }) {
                return "broadcast"
            }
            if !self.subnets.isEmpty, !self.subnets.contains(where: { $0.contains(v4) }) {
                return "outside the interface's subnets"
            }
            return nil
        case .v6(let v6):
            if v6.bytes.allSatisfy({ $0 == 0 }) { return "unspecified" }
            if v6.bytes.dropLast().allSatisfy({ $0 == 0 }) && v6.bytes[15] == 1 {
                return self.isLoopback ? nil : "loopback"
            }
            if v6.bytes[0] == 0xFF { return "multicast" }
            // IPv4-mapped: the same rules as the IPv4 address.
            if v6.bytes[0..<10].allSatisfy({ $0 == 0 }) && v6.bytes[10] == 0xFF && v6.bytes[11] == 0xFF,
                let v4 = IPAddress.V4(bytes: v6.bytes[12...])
            {
                return self.refusal(of: .v4(v4))
            }
            return nil
        }
    }
}
