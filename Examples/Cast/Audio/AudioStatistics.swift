import CastKit
import CastRemoteDisplay
import Foundation

/// The figures `cast audio` shows live and at the end.
struct AudioStatistics {
    let applicationID: String
    let bitrate: Int
    let statistics: RemoteDisplayStatistics
    /// A speaker group's members as MULTIZONE_STATUS lists them, empty for a single device.
    let members: JSONValue

    init(_ audio: AudioCastSession) {
        self.applicationID = audio.applicationID
        self.bitrate = audio.session.configuration.audio?.bitrate ?? 0
        self.statistics = audio.session.currentStatistics
        self.members = .array(audio.group.devices.map(\.json))
    }

    /// One line: the Opus bitrate, then the SDK's line.
    var line: String { "\(self.bitrate / 1_000) kbit/s, \(self.statistics)" }

    /// The SDK's figures, with the app, the Opus bitrate and a group's members.
    var json: JSONValue {
        let fields: [String: JSONValue] = [
            "applicationId": .string(self.applicationID), "audioBitrate": .integer(self.bitrate),
            "members": self.members,
        ]
        return .object((self.statistics.json.objectValue ?? [:]).merging(fields) { $1 })
    }
}
