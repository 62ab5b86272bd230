import CastKit
import Foundation

/// A speaker group's members and their volumes, from the multizone channel
/// of the device `cast audio` plays to: listed at the start, each change
/// printed as it comes. A device that is no group has no members, and says so
/// with an empty list or no answer (both are fine).
final class GroupMembers: Sendable {
    private let channel = MultizoneChannel(requestTimeout: .seconds(2))
    private let watcher: Task<Void, Never>

    /// Asks `link`'s device for its members and follows them, in the
    /// background: a receiver without the multizone channel (Open Screen's)
    /// does not answer, and the sound does not wait for it.
    init(_ link: CastDeviceLink) {
        self.channel.attach(to: link.connection, destinationID: ReceiverLink.platformID, logger: link.logger)
        let events = self.channel.events()
        self.watcher = Task { [channel] in
            if let members = try? await channel.requestStatus().devices, !members.isEmpty {
                Output.progress("group of \(members.count): " + members.map(Self.describe).joined(separator: ", "))
            }
            for await event in events {
                switch event {
                case .deviceAdded(let device): Output.progress("joined the group: \(Self.describe(device))")
                case .deviceUpdated(let device): Output.progress("group member: \(Self.describe(device))")
                case .deviceRemoved(let id): Output.progress("left the group: \(id)")
                case .statusChanged, .castingGroupsChanged: break
                }
            }
        }
    }

    /// Follows the members on `link`, a new connection after a loss (the
    /// events already subscribed to go on).
    func follow(_ link: CastDeviceLink) {
        self.channel.attach(to: link.connection, destinationID: ReceiverLink.platformID, logger: link.logger)
    }

    /// The members now.
    var members: [MultizoneDevice] { self.channel.devices }

    /// Stops following.
    func stop() {
        self.watcher.cancel()
        self.channel.detach()
    }

    /// `name (volume 50%, muted)`.
    static func describe(_ device: MultizoneDevice) -> String {
        guard let volume = device.volume, let level = volume.level else { return device.name }
        return "\(device.name) (volume \(Int((level * 100).rounded()))%\(volume.isMuted == true ? ", muted" : ""))"
    }

    /// The members as JSON: name, id and volume.
    var json: JSONValue {
        .array(
            self.members.map { device in
                [
                    "id": .string(device.id), "name": .string(device.name),
                    "volume": device.volume?.level.map { .number($0) } ?? .null,
                    "muted": device.volume?.isMuted.map { .bool($0) } ?? .null,
                ]
            })
    }
}
