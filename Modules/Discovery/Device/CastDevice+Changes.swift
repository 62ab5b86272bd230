extension CastDevice {
    /// Which parts of a device changed between two sightings.
    public struct Changes: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8

        /// Creates a set of changes from its bits.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The device's addresses.
        public static let addresses = Changes(rawValue: 1 << 0)
        /// The device's port (groups move when their leader changes).
        public static let port = Changes(rawValue: 1 << 1)
        /// The friendly name.
        public static let friendlyName = Changes(rawValue: 1 << 2)
        /// Idle or busy.
        public static let status = Changes(rawValue: 1 << 3)
        /// The capability bits.
        public static let capabilities = Changes(rawValue: 1 << 4)
        /// The running application's status text.
        public static let runningAppStatus = Changes(rawValue: 1 << 5)
        /// Anything else: model, icon, version, host or instance name, TXT attributes not modelled.
        public static let other = Changes(rawValue: 1 << 6)
    }

    /// What differs between `self` and `other`; empty when they are equal.
    public func changes(comparedTo other: CastDevice) -> Changes {
        var changes: Changes = []
        if self.addresses != other.addresses { changes.insert(.addresses) }
        if self.port != other.port { changes.insert(.port) }
        if self.friendlyName != other.friendlyName { changes.insert(.friendlyName) }
        if self.status != other.status { changes.insert(.status) }
        if self.capabilities != other.capabilities { changes.insert(.capabilities) }
        if self.runningAppStatus != other.runningAppStatus { changes.insert(.runningAppStatus) }
        var rest = self
        rest.addresses = other.addresses
        rest.port = other.port
        rest.friendlyName = other.friendlyName
        rest.status = other.status
        rest.capabilities = other.capabilities
        rest.runningAppStatus = other.runningAppStatus
        // The TXT map repeats the modelled attributes; only the others count as `other` here.
        rest.txtRecord = Self.unmodelledAttributes(of: self.txtRecord)
        var otherRest = other
        otherRest.txtRecord = Self.unmodelledAttributes(of: other.txtRecord)
        if rest != otherRest { changes.insert(.other) }
        return changes
    }

    /// The TXT attributes that no property models: `cd`, `bs`, `rm`, `nf` and unknown ones.
    private static func unmodelledAttributes(of txt: [String: String]) -> [String: String] {
        txt.filter { !["fn", "st", "ca", "rs"].contains($0.key) }
    }
}
