public import CastDiscovery
import CastKit

/// What a device chooser shows: the SDK's device-chooser dialog as data.
public struct DeviceChooserState: Sendable, Hashable {
    /// One device in the list.
    public struct Entry: Sendable, Hashable, Identifiable {
        /// The device.
        public var device: CastDevice
        /// The line under its name: what it is casting (the app's name for the
        /// session's own device; the device's advertised status otherwise).
        public var statusText: String?
        /// Whether the session runs on it.
        public var isCurrent: Bool
        /// What the device's setup server says about it (manufacturer,
        /// model), once asked; `nil` before, and for devices that cannot be asked.
        public var details: CastDeviceDetails?

        /// Creates an entry.
        public init(
            device: CastDevice, statusText: String? = nil, isCurrent: Bool = false,
            details: CastDeviceDetails? = nil
        ) {
            self.device = device
            self.statusText = statusText
            self.isCurrent = isCurrent
            self.details = details
        }

        /// The line the SDK's picker shows under a name: the manufacturer and
        /// model ("Google Inc. Chromecast"), the advertised model alone before
        /// the details arrive; empty for neither.
        public var modelText: String {
            let model = self.details?.modelName ?? self.device.modelName
            return [self.details?.manufacturer, model.isEmpty ? nil : model].compactMap { $0 }
                .joined(separator: " ")
        }

        /// The device's id.
        public var id: String { self.device.id }
    }

    /// The session's device, for the chooser's "connected" view.
    public struct Connection: Sendable, Hashable {
        /// The device.
        public var device: CastDevice
        /// Whether the session is still starting or reconnecting.
        public var isConnecting: Bool
        /// The receiver app's name, once it runs.
        public var applicationName: String?

        /// Creates a connection's description (for previews and tests; the chooser makes its own).
        public init(device: CastDevice, isConnecting: Bool, applicationName: String? = nil) {
            self.device = device
            self.isConnecting = isConnecting
            self.applicationName = applicationName
        }
    }

    /// Why the list is empty: a Linux stand-in for the iOS local-network
    /// prompt and the SDK's troubleshooting screen.
    public enum NoDevicesReason: Sendable, Hashable {
        /// Still looking; nothing is wrong yet.
        case searching
        /// No interface is up that discovery may use (the selection in
        /// `CastOptions.discovery`, multicast-capable and not loopback by default).
        case noNetworkInterface
        /// Discovery could not listen for mDNS: the port is taken without
        /// address sharing, or the socket was refused; the message says which.
        case cannotListen(String)
        /// Discovery has been asking for a while and no device answered: a
        /// firewall, a router that drops multicast, or devices on another subnet.
        case nothingAnswers

        /// A sentence for the user, with what to try.
        public var hint: String {
            switch self {
            case .searching:
                "Looking for Cast devices…"
            case .noNetworkInterface:
                "No network connection. Connect to the network your Cast devices are on."
            case .cannotListen(let detail):
                "Cannot listen for Cast devices (\(detail)). Another program may hold UDP port 5353."
            case .nothingAnswers:
                "No Cast devices answered. Check that they are on this network and that the firewall "
                    + "lets mDNS (UDP port 5353) through."
            }
        }
    }

    /// Whether the chooser is showing (discovery scans actively meanwhile).
    public var isOpen: Bool
    /// The devices to choose from, in the SDK's order (by name).
    public var entries: [Entry]
    /// The session's device, while there is a session.
    public var connection: Connection?
    /// Why the list is empty; `nil` when it is not.
    public var noDevicesReason: NoDevicesReason?

    /// A closed chooser with nothing found yet.
    public static let initial = DeviceChooserState(
        isOpen: false, entries: [], connection: nil, noDevicesReason: .searching)
}
