public import CastChannels
import Foundation

extension RemoteDisplayStatistics: CustomStringConvertible {
    /// One line for people, as `cast screen` and `cast audio` print it each
    /// second. With video: the size and rate encoded, frames sent /
    /// acknowledged / dropped, the bitrate, the round trip, the delay in
    /// force, the share of packets resent and the encode time. Sound alone:
    /// its frames, the round trip, packets resent and what is in flight.
    public var description: String {
        let rtt = self.roundTripTime.map { String(format: "%.0f ms", $0 / .milliseconds(1)) } ?? "-"
        guard let video = self.video else {
            let audio = self.audio ?? StreamStatistics()
            return "frames \(audio.framesSent) sent / \(audio.framesAcknowledged) acked / \(audio.framesDropped) "
                + "dropped, RTT \(rtt), resent \(audio.retransmittedPackets), "
                + "in flight \(audio.framesInFlight * 10) ms"
        }
        let format = self.videoResolution.map { "\($0) at \(self.videoFrameRate ?? 0) fps, " } ?? ""
        let resent = Double(video.retransmittedPackets) * 100 / Double(max(video.packetsSent, 1))
        return format
            + "frames \(video.framesSent) sent / \(video.framesAcknowledged) acked / \(video.framesDropped) dropped, "
            + "\(self.videoBitrate / 1_000) kbit/s, RTT \(rtt), "
            + String(format: "delay %.0f ms, ", self.targetDelay / .milliseconds(1))
            + String(format: "resent %.1f %%, encode %.1f ms", resent, self.averageEncodeTime / .milliseconds(1))
    }

    /// The statistics as one flat JSON object: each stream's counters
    /// (`videoFramesSent`, `audioFramesAcknowledged`…, `keyFrames` for
    /// video), `retransmittedPackets` of both, the bitrate and size in force,
    /// and durations in milliseconds; `null` for what is not measured yet.
    public var json: JSONValue {
        let (video, audio) = (self.video ?? StreamStatistics(), self.audio ?? StreamStatistics())
        func milliseconds(_ duration: Duration?) -> JSONValue {
            duration.map { .number($0 / .milliseconds(1)) } ?? .null
        }
        return [
            "videoFramesEncoded": .integer(self.videoFramesEncoded),
            "videoFramesSent": .integer(video.framesSent),
            "videoFramesAcknowledged": .integer(video.framesAcknowledged),
            "videoFramesDropped": .integer(video.framesDropped), "keyFrames": .integer(video.keyFrames),
            "videoPacketsSent": .integer(video.packetsSent),
            "videoRetransmittedPackets": .integer(video.retransmittedPackets),
            "audioFramesSent": .integer(audio.framesSent),
            "audioFramesAcknowledged": .integer(audio.framesAcknowledged),
            "audioFramesDropped": .integer(audio.framesDropped),
            "audioRetransmittedPackets": .integer(audio.retransmittedPackets),
            "retransmittedPackets": .integer(video.retransmittedPackets + audio.retransmittedPackets),
            "videoBitrate": .integer(self.videoBitrate),
            "bandwidthEstimate": self.bandwidthEstimate.map { .integer($0) } ?? .null,
            "videoWidth": self.videoResolution.map { .integer($0.width) } ?? .null,
            "videoHeight": self.videoResolution.map { .integer($0.height) } ?? .null,
            "videoFrameRate": self.videoFrameRate.map { .integer($0) } ?? .null,
            "roundTripTimeMilliseconds": milliseconds(self.roundTripTime),
            "averageEncodeMilliseconds": milliseconds(self.averageEncodeTime),
            "targetDelayMilliseconds": milliseconds(self.targetDelay),
        ]
    }
}
