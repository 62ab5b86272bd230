public import CastChannels
import Foundation

// How the emulator's measurements are printed (`cast-receiver`'s report, `cast
// demo`'s summary): a form of the report, not receiver behaviour, which stays
// as its sources say (Docs/spec/cast-streaming.md).
extension StreamingReport: CustomStringConvertible {
    /// The report in a few lines for people, as `cast-receiver` prints it when
    /// a stream ends: each stream's frames, packets, PSNR and latencies, the
    /// A/V offset, and the feedback exchanged.
    public var description: String {
        var lines = ["Remote Display stream report:"]
        for (name, stream) in [("video", self.video), ("audio", self.audio)] {
            guard let stream else { continue }
            lines.append("  \(name): " + stream.summary)
        }
        if let offset = self.audioVideoOffset { lines.append("  A/V offset \(Self.milliseconds(offset)) ms") }
        lines.append(
            "  \(self.senderReportsReceived) sender reports, \(self.feedbackPacketsSent) feedback packets, "
                + "\(self.datagramsDroppedByImpairment) datagrams dropped by impairment")
        return lines.joined(separator: "\n")
    }

    /// The report as JSON: `video` and `audio` (each stream's counts, PSNR
    /// in dB and latencies in milliseconds, `null` where not measured), the
    /// A/V offset and the feedback counts.
    public var json: JSONValue {
        [
            "video": self.video?.json ?? .null, "audio": self.audio?.json ?? .null,
            "audioVideoOffsetMilliseconds": Self.milliseconds(self.audioVideoOffset),
            "senderReportsReceived": .integer(self.senderReportsReceived),
            "feedbackPacketsSent": .integer(self.feedbackPacketsSent),
            "datagramsDroppedByImpairment": .integer(self.datagramsDroppedByImpairment),
        ]
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration / .milliseconds(1))
    }

    static func milliseconds(_ duration: Duration?) -> JSONValue {
        duration.map { .number($0 / .milliseconds(1)) } ?? .null
    }
}

extension StreamReport {
    /// One line: frames, packets, PSNR and latencies.
    fileprivate var summary: String {
        var line =
            "\(self.framesReceived) frames received, \(self.framesDecoded) decoded, \(self.framesLate) late, "
            + "\(self.framesLost) lost; \(self.packetsReceived) packets, \(self.duplicatePackets) duplicate"
        if let psnr = self.meanPSNR, let minimum = self.minimumPSNR {
            line += String(format: "; PSNR %.1f dB (min %.1f)", psnr, minimum)
        }
        for (name, p50, p99) in [
            ("latency", self.latencyP50, self.latencyP99), ("shown", self.shownLatencyP50, self.shownLatencyP99),
        ] {
            guard let p50, let p99 else { continue }
            line += "; \(name) p50 \(StreamingReport.milliseconds(p50)) ms, p99 \(StreamingReport.milliseconds(p99)) ms"
        }
        return line
    }

    /// The stream as JSON, for ``StreamingReport/json``.
    fileprivate var json: JSONValue {
        func milliseconds(_ duration: Duration?) -> JSONValue { StreamingReport.milliseconds(duration) }
        return [
            "framesReceived": .integer(self.framesReceived), "framesDecoded": .integer(self.framesDecoded),
            "framesLate": .integer(self.framesLate), "framesLost": .integer(self.framesLost),
            "keyFrames": .integer(self.keyFrames), "packetsReceived": .integer(self.packetsReceived),
            "duplicatePackets": .integer(self.duplicatePackets), "decodeErrors": .integer(self.decodeErrors),
            "minimumPSNR": self.minimumPSNR.map(JSONValue.number) ?? .null,
            "meanPSNR": self.meanPSNR.map(JSONValue.number) ?? .null,
            "latencyP50Milliseconds": milliseconds(self.latencyP50),
            "latencyP99Milliseconds": milliseconds(self.latencyP99),
            "shownLatencyP50Milliseconds": milliseconds(self.shownLatencyP50),
            "shownLatencyP99Milliseconds": milliseconds(self.shownLatencyP99),
            "playoutDelayMilliseconds": milliseconds(self.playoutDelay),
            "codec": self.codec.map { .string($0.rawValue) } ?? .null,
            "soundLevel": self.soundLevel.map(JSONValue.number) ?? .null,
            "soundFrequency": self.soundFrequency.map(JSONValue.number) ?? .null,
        ]
    }
}
