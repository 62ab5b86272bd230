public import CastDiscovery

// Discovery's types as JSON, written here where JSONValue lives (CastDiscovery
// sits below CastChannels): what `cast discover --json` prints a line of.

extension CastDevice {
    /// The device as JSON: `id`, `name`, `model`, `port`, `addresses`,
    /// `capabilities` (the TXT record's `ca` bits), `group` and `icon`
    /// (`null` when it has none).
    public var json: JSONValue {
        [
            "id": .string(self.id), "name": .string(self.friendlyName), "model": .string(self.modelName),
            "port": .integer(self.port), "addresses": .array(self.addresses.map { .string($0.description) }),
            "capabilities": .integer(Int(clamping: self.capabilities.rawValue)), "group": .bool(self.isGroup),
            "icon": self.iconURL.map { .string($0.absoluteString) } ?? .null,
        ]
    }
}

extension DiscoveryEvent {
    /// The event as JSON: the device's fields (``CastDevice/json``) with
    /// `event` — `found`, `updated` or `lost` — and `detail`: the changes'
    /// bits of an update, why a device was lost, empty for a find.
    public var json: JSONValue {
        let (name, detail): (String, String) =
            switch self {
            case .found: ("found", "")
            case .updated(_, let changes): ("updated", "changes \(changes.rawValue)")
            case .lost(_, let reason): ("lost", "\(reason)")
            }
        let fields: [String: JSONValue] = ["event": .string(name), "detail": .string(detail)]
        return .object((self.device.json.objectValue ?? [:]).merging(fields) { $1 })
    }
}

extension CastDeviceDetails {
    /// What the setup server says as JSON: `manufacturer`, `modelName` and
    /// `firmware`, `null` where it said nothing.
    public var json: JSONValue {
        [
            "manufacturer": self.manufacturer.map(JSONValue.string) ?? .null,
            "modelName": self.modelName.map(JSONValue.string) ?? .null,
            "firmware": self.firmwareVersion.map(JSONValue.string) ?? .null,
        ]
    }
}
