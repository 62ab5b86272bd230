import CastKit
import CastRemoteDisplay

/// A speaker group's members and their volumes as `cast audio` plays to it
/// (the SDK's ``AudioCastSession/group``, which follows reconnections):
/// listed at the start, each change printed as it comes. A device that is no
/// group has no members, and says so with an empty list or no answer (both
/// are fine).
enum GroupMembers {
    /// Asks for the members and prints them and their changes, in the
    /// background: a receiver without the multizone channel (Open Screen's)
    /// does not answer, and the sound does not wait for it.
    static func follow(_ audio: AudioCastSession) -> Task<Void, Never> {
        let events = audio.group.events()
        return Task { [group = audio.group] in
            if let members = try? await group.requestStatus().devices, !members.isEmpty {
                Output.progress("group of \(members.count): " + members.map(\.description).joined(separator: ", "))
            }
            for await event in events {
                switch event {
                case .deviceAdded(let device): Output.progress("joined the group: \(device)")
                case .deviceUpdated(let device): Output.progress("group member: \(device)")
                case .deviceRemoved(let id): Output.progress("left the group: \(id)")
                case .statusChanged, .castingGroupsChanged: break
                }
            }
        }
    }
}
