import ArgumentParser
import CastKit
import CastRemoteDisplay
import Foundation

/// `cast screen`: Remote Display of a generated test pattern (with its
/// clock) and a 440 Hz tone, with live statistics and a summary.
struct ScreenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen", abstract: "Stream a test pattern and a tone to the receiver with Remote Display.")

    @Option(help: "Picture width.") var width = 1_280
    @Option(help: "Picture height.") var height = 720
    @Option(help: "Frames per second.") var fps = 30
    @Option(help: "Highest video bitrate, kbit/s.") var bitrate = 5_000
    @Option(help: "Target playout delay, milliseconds.") var delay = 400
    @Option(help: "Seconds to stream.") var seconds: Double = 10
    @Flag(help: "No audio stream.") var noAudio = false
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard self.width > 0, self.height > 0, self.width % 2 == 0, self.height % 2 == 0 else {
            throw ValidationError("the picture needs an even, positive width and height")
        }
        guard (1...60).contains(self.fps) else { throw ValidationError("--fps must be 1…60") }
        guard self.seconds > 0 else { throw ValidationError("--seconds must be positive") }
    }

    func run() async throws {
        try await self.reportingFailures {
            let configuration = RemoteDisplayConfiguration(
                resolutions: [RemoteDisplayConfiguration.Resolution(width: self.width, height: self.height)],
                maximumFrameRate: self.fps, maximumVideoBitrate: self.bitrate * 1_000,
                audio: self.noAudio ? nil : RemoteDisplayConfiguration.Audio(),
                targetDelay: .milliseconds(self.delay))
            let statistics = try await ReceiverLink.with(self.options) { link in
                let channel = RemoteDisplayChannel(logger: link.logger)
                _ = try await link.application(CastApplicationID.mirroring, attaching: [channel])
                let session = try await channel.beginSession(configuration: configuration)
                let resolution = session.configuration.resolution
                Output.progress(
                    "streaming \(resolution.width)x\(resolution.height) at \(self.fps) fps for \(self.seconds) s")
                let signal = try TestSignal(
                    width: resolution.width, height: resolution.height, frameRate: self.fps,
                    start: HostTime.now.advanced(by: .milliseconds(100)))
                try await signal.stream(seconds: self.seconds, to: session) { index in
                    guard index % self.fps == self.fps - 1 else { return }
                    Output.progress(ScreenStatistics(session.currentStatistics).line)
                }
                try await Task.sleep(for: .milliseconds(600))  // the last acknowledgements and statistics
                let final = session.currentStatistics
                session.stop()
                channel.detach()
                return final
            }
            let summary = ScreenStatistics(statistics)
            try Output.result(json: summary.json, text: summary.line, asJSON: self.options.json)
        }
    }
}

/// The figures `cast screen` shows live and at the end.
struct ScreenStatistics {
    let statistics: RemoteDisplayStatistics

    init(_ statistics: RemoteDisplayStatistics) {
        self.statistics = statistics
    }

    private var lossPercent: Double {
        let video = self.statistics.video
        let packets = max(video?.packetsSent ?? 0, 1)
        return Double(video?.retransmittedPackets ?? 0) * 100 / Double(packets)
    }

    /// One line: frames, bitrate, RTT, retransmissions, encode time.
    var line: String {
        let video = self.statistics.video
        let rtt = self.statistics.roundTripTime.map { String(format: "%.0f ms", $0 / .milliseconds(1)) } ?? "-"
        return "frames \(video?.framesSent ?? 0) sent / \(video?.framesAcknowledged ?? 0) acked / "
            + "\(video?.framesDropped ?? 0) dropped, \(self.statistics.videoBitrate / 1_000) kbit/s, RTT \(rtt), "
            + String(
                format: "resent %.1f %%, encode %.1f ms", self.lossPercent,
                self.statistics.averageEncodeTime / .milliseconds(1))
    }

    var json: JSONValue {
        let video = self.statistics.video
        return [
            "videoFramesEncoded": .integer(self.statistics.videoFramesEncoded),
            "videoFramesSent": .integer(video?.framesSent ?? 0),
            "videoFramesAcknowledged": .integer(video?.framesAcknowledged ?? 0),
            "videoFramesDropped": .integer(video?.framesDropped ?? 0),
            "keyFrames": .integer(video?.keyFrames ?? 0),
            "retransmittedPackets": .integer(video?.retransmittedPackets ?? 0),
            "audioFramesSent": .integer(self.statistics.audio?.framesSent ?? 0),
            "videoBitrate": .integer(self.statistics.videoBitrate),
            "roundTripTimeMilliseconds": self.statistics.roundTripTime.map { .number($0 / .milliseconds(1)) } ?? .null,
            "averageEncodeMilliseconds": .number(self.statistics.averageEncodeTime / .milliseconds(1)),
        ]
    }
}
