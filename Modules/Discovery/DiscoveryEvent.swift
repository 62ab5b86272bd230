/// A change in the list of Cast devices.
public enum DiscoveryEvent: Hashable, Sendable {
    /// A device appeared, or now passes the filter.
    case found(CastDevice)
    /// A device's addresses, name, status, capabilities or other attributes changed.
    case updated(CastDevice, changes: CastDevice.Changes)
    /// A device went away.
    case lost(CastDevice, reason: LossReason)

    /// The device the event is about, in its newest form.
    public var device: CastDevice {
        switch self {
        case .found(let device), .updated(let device, _), .lost(let device, _): device
        }
    }

    /// Why a device left the list.
    public enum LossReason: Hashable, Sendable {
        /// The device said goodbye: its records arrived with TTL 0.
        case goodbye
        /// The device's records expired without being refreshed.
        case expired
        /// The interface the device was seen on went down.
        case interfaceDown
        /// The device no longer passes the filter.
        case filteredOut
        /// The app removed the known host.
        case removed
        /// mDNS found the known host; the found device, with everything its records say, stands in for it.
        case replaced
        /// Discovery stopped.
        case stopped
    }
}
