import CastKit
import CastRemoteDisplay
import Foundation

/// The figures `cast audio` shows live and at the end.
struct AudioStatistics {
    let applicationID: String
    let bitrate: Int
    let statistics: RemoteDisplayStatistics
    /// A speaker group's members (`GroupMembers.json`), empty for a single device.
    var members: JSONValue = []

    init(_ audio: AudioCastSession) {
        self.applicationID = audio.applicationID
        self.bitrate = audio.session.configuration.audio?.bitrate ?? 0
        self.statistics = audio.session.currentStatistics
    }

    /// One line: Opus bitrate, frames, RTT, resends and what is in flight (each frame is 10 ms).
    var line: String {
        let audio = self.statistics.audio
        let rtt = self.statistics.roundTripTime.map { String(format: "%.0f ms", $0 / .milliseconds(1)) } ?? "-"
        return "\(self.bitrate / 1_000) kbit/s, frames \(audio?.framesSent ?? 0) sent / "
            + "\(audio?.framesAcknowledged ?? 0) acked / \(audio?.framesDropped ?? 0) dropped, RTT \(rtt), "
            + "resent \(audio?.retransmittedPackets ?? 0), in flight \((audio?.framesInFlight ?? 0) * 10) ms"
    }

    var json: JSONValue {
        let audio = self.statistics.audio
        return [
            "applicationId": .string(self.applicationID),
            "audioBitrate": .integer(self.bitrate),
            "audioFramesSent": .integer(audio?.framesSent ?? 0),
            "audioFramesAcknowledged": .integer(audio?.framesAcknowledged ?? 0),
            "audioFramesDropped": .integer(audio?.framesDropped ?? 0),
            "retransmittedPackets": .integer(audio?.retransmittedPackets ?? 0),
            "roundTripTimeMilliseconds": self.statistics.roundTripTime.map { .number($0 / .milliseconds(1)) } ?? .null,
            "targetDelayMilliseconds": .number(self.statistics.targetDelay / .milliseconds(1)),
            "members": self.members,
        ]
    }
}
