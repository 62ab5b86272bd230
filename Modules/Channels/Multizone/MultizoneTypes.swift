/// One speaker in a group (MULTIZONE_STATUS, DEVICE_ADDED / DEVICE_UPDATED).
public struct MultizoneDevice: Sendable, Hashable {
    /// The member's receiver id.
    public var id: String
    /// The member's friendly name.
    public var name: String
    /// The member's capability bits, if given.
    public var capabilities: Int?
    /// The member's volume, if given.
    public var volume: ReceiverVolume?

    /// Creates a member.
    public init(id: String, name: String, capabilities: Int? = nil, volume: ReceiverVolume? = nil) {
        self.id = id
        self.name = name
        self.capabilities = capabilities
        self.volume = volume
    }

    /// Reads a `devices[]` or `device` object; `nil` without a `deviceId`.
    init?(json: JSONValue) {
        guard let id = json["deviceId"]?.stringValue else { return nil }
        self.init(
            id: id,
            name: json["name"]?.stringValue ?? "",
            capabilities: json["capabilities"]?.intValue,
            volume: json["volume"].map(ReceiverVolume.init(json:))
        )
    }
}

extension MultizoneDevice: CustomStringConvertible {
    /// `Kitchen (volume 50%, muted)`, or the name alone without a volume.
    public var description: String {
        guard let volume = self.volume, let level = volume.level else { return self.name }
        return "\(self.name) (volume \(Int((level * 100).rounded()))%\(volume.isMuted == true ? ", muted" : ""))"
    }

    /// The member as MULTIZONE_STATUS carries it, what the receiver sent.
    public var json: JSONValue {
        var device: [String: JSONValue] = ["deviceId": .string(self.id), "name": .string(self.name)]
        device["capabilities"] = self.capabilities.map(JSONValue.integer)
        device["volume"] = self.volume?.json
        return .object(device)
    }
}

/// A group's members (MULTIZONE_STATUS).
public struct MultizoneStatus: Sendable, Hashable {
    /// The members, in the receiver's order.
    public var devices: [MultizoneDevice]
    /// Whether the group plays different channels on different members (a stereo pair), if given.
    public var isMultichannel: Bool?

    /// Creates a status.
    public init(devices: [MultizoneDevice] = [], isMultichannel: Bool? = nil) {
        self.devices = devices
        self.isMultichannel = isMultichannel
    }

    /// Reads the `status` object of MULTIZONE_STATUS.
    init(json: JSONValue) {
        self.init(
            devices: (json["devices"]?.arrayValue ?? []).compactMap(MultizoneDevice.init(json:)),
            isMultichannel: json["isMultichannel"]?.boolValue
        )
    }
}

/// A speaker group a device belongs to (CASTING_GROUPS).
public struct CastingGroup: Sendable, Hashable {
    /// The group's receiver id.
    public var id: String
    /// The group's name.
    public var name: String

    /// Creates a group.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// Reads a `groups[]` entry (`uuid`, or `groupId` / `deviceId` on some firmware); `nil` without an id.
    init?(json: JSONValue) {
        guard let id = json["uuid"]?.stringValue ?? json["groupId"]?.stringValue ?? json["deviceId"]?.stringValue
        else { return nil }
        self.init(id: id, name: json["name"]?.stringValue ?? "")
    }
}

/// What a ``MultizoneChannel`` observes.
public enum MultizoneEvent: Sendable, Hashable {
    /// A full member list arrived.
    case statusChanged(MultizoneStatus)
    /// A speaker joined the group.
    case deviceAdded(MultizoneDevice)
    /// A member changed (name, volume).
    case deviceUpdated(MultizoneDevice)
    /// A speaker left the group.
    case deviceRemoved(id: String)
    /// The casting-group list arrived.
    case castingGroupsChanged([CastingGroup])
}

/// A message in the multizone namespace, decoded.
enum MultizoneReply: Sendable {
    case status(MultizoneStatus)
    case castingGroups([CastingGroup])
    case invalidRequest(reason: String?)
    case other(type: String)
}
