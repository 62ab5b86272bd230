public import Foundation

/// A Cast receiver found on the network, or added by address as a known host.
///
/// The fields come from the device's DNS-SD records: the TXT attributes
/// (`id`, `fn`, `md`, `ic`, `ca`, `st`, `ve`, `rs`), the SRV port and host,
/// and every A/AAAA address of that host.
public struct CastDevice: Hashable, Sendable, Identifiable, CustomStringConvertible {
    /// The receiver's id: its `id` TXT attribute (32 hex digits, or a dashed UUID for groups).
    /// For a known host without mDNS, `host:port`.
    public var id: String
    /// The name the user gave the device (`fn`).
    public var friendlyName: String
    /// The model name (`md`), such as `Chromecast` or `Google Cast Group`.
    public var modelName: String
    /// The path of the device's icon on its HTTP server (`ic`), such as `/setup/icon.png`.
    public var iconPath: String?
    /// What the device can do (`ca`).
    public var capabilities: CastDeviceCapabilities
    /// Whether the device is idle or hosting an activity others may join (`st`).
    public var status: Status
    /// The Cast protocol version the device speaks (`ve`), when it says.
    public var protocolVersion: Int?
    /// The running application's status text (`rs`); `nil` when idle.
    public var runningAppStatus: String?
    /// Every address the device's host has, IPv4 first.
    public var addresses: [IPAddress]
    /// The TCP port of the device's Cast channel (the SRV port; 8009 on single devices).
    public var port: Int
    /// The DNS-SD service instance name, such as `Chromecast-4c5b...`; empty for known hosts.
    public var instanceName: String
    /// The SRV target host name, such as `4c5b....local`; `nil` for known hosts.
    public var hostName: String?
    /// Every TXT attribute as received, keys in lower case, including those not modelled above.
    public var txtRecord: [String: String]
    /// How the device was found.
    public var source: Source

    /// Whether the device idles or hosts an activity.
    public enum Status: Hashable, Sendable {
        /// Nothing running (`st=0`).
        case idle
        /// Hosting an activity a sender may join (`st=1`).
        case busy
        /// Any other or a missing value, kept as received.
        case unknown(String?)

        init(txtValue: String?) {
            switch txtValue {
            case "0": self = .idle
            case "1": self = .busy
            default: self = .unknown(txtValue)
            }
        }
    }

    /// How a device came to be in the list.
    public enum Source: Hashable, Sendable {
        /// Found by mDNS/DNS-SD.
        case multicastDNS
        /// Added by address with ``DiscoveryManager/addKnownHost(_:port:friendlyName:)``.
        case knownHost
        /// Found by unicast: a subnet scan (``DiscoveryManager/scan(_:configuration:)``), or
        /// the device's own DNS-SD answer at an address the ``DeviceCache`` remembered.
        case unicast
    }

    /// A device known by its address alone, as a sender that does not
    /// browse has it: id `host:port`, the address as its name, nothing else
    /// known (no model, no capabilities).
    public init(knownHost address: IPAddress, port: Int = 8009) {
        self.init(addressOnly: address, port: port, source: .knownHost)
    }

    /// Creates a device description.
    public init(
        id: String,
        friendlyName: String,
        modelName: String,
        iconPath: String? = nil,
        capabilities: CastDeviceCapabilities,
        status: Status = .idle,
        protocolVersion: Int? = nil,
        runningAppStatus: String? = nil,
        addresses: [IPAddress],
        port: Int,
        instanceName: String = "",
        hostName: String? = nil,
        txtRecord: [String: String] = [:],
        source: Source = .multicastDNS
    ) {
        self.id = id
        self.friendlyName = friendlyName
        self.modelName = modelName
        self.iconPath = iconPath
        self.capabilities = capabilities
        self.status = status
        self.protocolVersion = protocolVersion
        self.runningAppStatus = runningAppStatus
        self.addresses = addresses
        self.port = port
        self.instanceName = instanceName
        self.hostName = hostName
        self.txtRecord = txtRecord
        self.source = source
    }

    /// The model name speaker groups advertise.
    public static let groupModelName = "Google Cast Group"
    /// The port single devices listen on; groups use another, on the elected leader.
    public static let standardPort = 8009

    /// Whether this is a multizone speaker group rather than one device: its model is
    /// `Google Cast Group`, it has the multizone-group capability, or it listens on a port other than 8009.
    public var isGroup: Bool {
        self.modelName == Self.groupModelName || self.capabilities.contains(.multizoneGroup)
            || self.port != Self.standardPort
    }

    /// `"Living Room" (Chromecast, 4c5b…) at 192.168.1.20:8009`.
    public var description: String {
        let address = self.addresses.first.map { "\($0)" } ?? "no address"
        return "\"\(self.friendlyName)\" (\(self.modelName), \(self.id)) at \(address):\(self.port)"
    }
}

extension CastDevice {
    /// The port of a device's local setup server (`/setup/…`), plain HTTP;
    /// its HTTPS twin is ``setupSecurePort``. Both are what real devices
    /// serve and what independent senders ask (pychromecast's `dial.py`:
    /// `http://{}:8008` and `https://{}:8443`).
    public static let setupPort = 8008
    /// The port of a device's local setup server over HTTPS (a self-signed certificate).
    public static let setupSecurePort = 8443

    /// Whether the device runs a setup server of its own: every device but a
    /// speaker group (its model `Google Cast Group` or the multizone-group
    /// capability), whose address is its elected leader's. Unlike
    /// ``isGroup``, a port other than 8009 alone does not count: a device
    /// added by address may listen anywhere.
    var hasOwnSetupServer: Bool {
        self.modelName != Self.groupModelName && !self.capabilities.contains(.multizoneGroup)
    }

    /// The device's icon as an absolute URL an app can load: its `ic` path on
    /// the setup server of its first address (`http://192.168.1.20:8008/setup/icon.png`).
    /// `nil` without an `ic` attribute or an address, or for a speaker group,
    /// whose advertising leader's icon is not the group's.
    public var iconURL: URL? {
        guard let path = self.iconPath, path.hasPrefix("/"), self.hasOwnSetupServer,
            let address = self.addresses.first
        else { return nil }
        return URL(string: "http://\(Self.urlHost(address)):\(Self.setupPort)\(path)")
    }

    /// `address` as the host part of a URL: IPv6 in brackets, a scoped
    /// address's zone written `%25` (RFC 6874).
    static func urlHost(_ address: IPAddress) -> String {
        switch address {
        case .v4(let v4): "\(v4)"
        case .v6(let v6): "[\("\(v6)".replacingOccurrences(of: "%", with: "%25"))]"
        }
    }
}
