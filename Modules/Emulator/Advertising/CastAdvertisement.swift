@_spi(Receiver) public import CastDiscovery

/// What the emulator's mDNS responder advertises: one `_googlecast._tcp`
/// service with the TXT attributes real receivers publish.
public struct CastAdvertisement: Hashable, Sendable {
    /// The receiver id (`id`): 32 hex digits for a device, a dashed UUID for a group.
    public var id: String
    /// The friendly name (`fn`).
    public var friendlyName: String
    /// The model name (`md`).
    public var modelName: String
    /// The capability bits (`ca`).
    public var capabilities: CastDeviceCapabilities
    /// Idle or busy (`st`).
    public var status: CastDevice.Status
    /// The Cast channel's TCP port (the SRV port).
    public var port: Int
    /// The protocol version (`ve`).
    public var protocolVersion: Int
    /// The icon path (`ic`).
    public var iconPath: String
    /// The running app's status text (`rs`), empty when idle.
    public var runningAppStatus: String
    /// Further attributes in the order sent, after the modelled ones (`cd`, `rm`, `bs`, `nf` by default).
    public var extraAttributes: [String: String]
    /// The TTL of the PTR, SRV and TXT records, in seconds (real devices: 4500).
    public var serviceTTL: UInt32
    /// The TTL of the A and AAAA records, in seconds (real devices: 120).
    public var hostTTL: UInt32

    /// Creates an advertisement; the defaults describe a Chromecast.
    public init(
        id: String,
        friendlyName: String,
        modelName: String = "Chromecast",
        capabilities: CastDeviceCapabilities = CastDeviceCapabilities(rawValue: 465_413),
        status: CastDevice.Status = .idle,
        port: Int = CastDevice.standardPort,
        protocolVersion: Int = 5,
        iconPath: String = "/setup/icon.png",
        runningAppStatus: String = "",
        extraAttributes: [String: String] = [
            "cd": "6C5F7BD3A8F94D41B1C7A3E9F1B2C4D5", "rm": "", "bs": "FA8FCA7A2B1C", "nf": "1",
        ],
        serviceTTL: UInt32 = 4500,
        hostTTL: UInt32 = 120
    ) {
        self.id = id
        self.friendlyName = friendlyName
        self.modelName = modelName
        self.capabilities = capabilities
        self.status = status
        self.port = port
        self.protocolVersion = protocolVersion
        self.iconPath = iconPath
        self.runningAppStatus = runningAppStatus
        self.extraAttributes = extraAttributes
        self.serviceTTL = serviceTTL
        self.hostTTL = hostTTL
    }

    /// A multizone speaker group as its elected leader advertises it.
    public static func group(id: String, friendlyName: String, port: Int = 32_254) -> CastAdvertisement {
        CastAdvertisement(
            id: id,
            friendlyName: friendlyName,
            modelName: CastDevice.groupModelName,
            capabilities: CastDeviceCapabilities(rawValue: 2084),
            port: port,
            iconPath: "/setup/icon.png"
        )
    }

    /// The DNS-SD instance name: the model with spaces as dashes (at most 20 bytes),
    /// a dash, and the id without dashes; `Chromecast-4c5b…`, `Google-Cast-Group-…`.
    public var instanceName: String {
        var model = ""
        for character in self.modelName.replacingSpaces() {
            guard model.utf8.count + String(character).utf8.count <= 20 else { break }
            model.append(character)
        }
        let name = "\(model)-\(self.id.filter { $0 != "-" })"
        return String(decoding: name.utf8.prefix(63), as: UTF8.self)
    }

    /// The SRV target host: the id as a dashed UUID, in `.local`.
    public var hostName: String {
        let hex = Array(self.id.filter { $0 != "-" })
        guard hex.count == 32 else { return "\(self.id.filter { $0.isLetter || $0.isNumber || $0 == "-" }).local" }
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
        return groups.joined(separator: "-") + ".local"
    }

    /// The TXT attributes in the order real receivers send them.
    public var txtAttributes: [(key: String, value: String)] {
        let status: String? =
            switch self.status {
            case .idle: "0"
            case .busy: "1"
            case .unknown(let value): value
            }
        var attributes: [(key: String, value: String)] = [("id", self.id)]
        for key in ["cd", "rm"] { if let value = self.extraAttributes[key] { attributes.append((key, value)) } }
        attributes += [
            ("ve", String(format2: self.protocolVersion)), ("md", self.modelName), ("ic", self.iconPath),
            ("fn", self.friendlyName), ("ca", String(self.capabilities.rawValue)),
        ]
        if let status { attributes.append(("st", status)) }
        for key in self.extraAttributes.keys.sorted() where key != "cd" && key != "rm" {
            attributes.append((key, self.extraAttributes[key] ?? ""))
        }
        attributes.append(("rs", self.runningAppStatus))
        return attributes
    }
}

extension String {
    /// The decimal text of `value`, at least two digits, as `ve` is sent (`05`).
    fileprivate init(format2 value: Int) {
        self = value >= 0 && value < 10 ? "0\(value)" : String(value)
    }

    fileprivate func replacingSpaces() -> String {
        String(self.map { $0 == " " ? "-" : $0 })
    }
}
