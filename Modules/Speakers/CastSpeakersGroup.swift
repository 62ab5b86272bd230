public import CastDiscovery

/// Several devices as one sound output ("Kitchen + Living Room TV"): one
/// sink whose sound every member present plays at the same moment, each
/// over its own session with the same target delay, whatever their makers.
public struct CastSpeakersGroup: Sendable, Hashable {
    /// The sink's name in the sound settings.
    public var name: String
    /// The members, by device name or id (either, matched without regard to case).
    public var members: [String]

    /// Creates a group.
    public init(name: String, members: [String]) {
        self.name = name
        self.members = members
    }

    /// Whether `device` is a member.
    public func includes(_ device: CastDevice) -> Bool {
        self.members.contains { Self.member($0, names: device) }
    }

    /// Whether `member` (a name or an id) names `device`, without regard to case.
    static func member(_ member: String, names device: CastDevice) -> Bool {
        let member = member.lowercased()
        return member == device.friendlyName.lowercased() || member == device.id.lowercased()
    }
}
