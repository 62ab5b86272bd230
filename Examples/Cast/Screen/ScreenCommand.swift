import ArgumentParser
import CastKit
import CastRemoteDisplay
import Foundation

/// `cast screen`: Remote Display of this machine's display and sound (by
/// default: the portal in a Wayland session, the X screen otherwise;
/// `--capture` picks), of a generated test pattern and a tone
/// (`--test-pattern`), or of a Y4M video and a WAV file, with live
/// statistics and a summary.
struct ScreenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screen",
        abstract:
            "Mirror this machine's screen and sound (the default), or stream a test pattern and a tone, or a Y4M video and a WAV file, with Remote Display."
    )

    @Flag(help: "Stream a generated test pattern and a tone instead of this machine's screen and sound.")
    var testPattern = false
    @Option(help: "A YUV4MPEG2 video (8-bit 4:2:0) to stream instead of the screen; sets size and rate.")
    var video: String?
    @Option(help: "A WAV file (16-bit PCM or 32-bit float) to stream instead of the screen's sound.") var audio: String?

    @Option(help: "The test pattern's width (with --capture, see --max-size).") var width = 1_280
    @Option(help: "The test pattern's height.") var height = 720
    @Option(help: "Frames per second.") var fps = 30
    @Option(help: "Highest video bitrate, kbit/s.") var bitrate = 5_000
    @Option(
        help: ArgumentHelp(
            "low (as little delay as the link allows: 60–400 ms, following it), normal (400 ms), smooth (800 ms), or a fixed delay in milliseconds.",
            valueName: "low|normal|smooth|MS"))
    var latency = "normal"
    @Option(help: "Video codecs to offer (vp9, vp8, h264, av1), most preferred first; the receiver picks one.")
    var codecs = "vp9,vp8"
    @Option(help: "Seconds to stream (default: until Ctrl-C; the test pattern 10).") var seconds: Double?
    @Flag(help: "No audio stream: the picture alone.") var noAudio = false
    @Flag(help: "Leave the receiver's mirroring app running when done (it is stopped by its session id otherwise).")
    var keepApp = false
    @OptionGroup(title: "Mirroring this machine") var capture: CaptureOptions
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard self.width > 0, self.height > 0, self.width % 2 == 0, self.height % 2 == 0 else {
            throw ValidationError("the picture needs an even, positive width and height")
        }
        guard (1...60).contains(self.fps) else { throw ValidationError("--fps must be 1…60") }
        guard (self.seconds ?? 1) > 0 else { throw ValidationError("--seconds must be positive") }
        _ = try self.videoCodecs()
        _ = try self.latencyMode()
        let synthetic = self.testPattern || self.video != nil || self.audio != nil
        if synthetic, !self.capture.capture.isEmpty || self.capture.extend {
            throw ValidationError(
                "--capture and --extend mirror this machine; they do not take --test-pattern, --video or --audio")
        }
        if synthetic, self.capture.maxSize != nil {
            throw ValidationError(
                "--max-size is for mirroring this machine; the test pattern takes --width and --height")
        }
        if !synthetic {
            _ = try self.capture.source()
            _ = try self.capture.maximumSize()
        }
        if self.capture.captureAudio, self.noAudio {
            throw ValidationError("--capture-audio asks for the sound that --no-audio leaves out")
        }
    }

    /// What `--latency` names.
    func latencyMode() throws -> RemoteDisplayConfiguration.Latency {
        guard let latency = RemoteDisplayConfiguration.Latency(self.latency) else {
            throw ValidationError("--latency takes low, normal, smooth or a delay of 1…5000 ms")
        }
        return latency
    }

    /// The codecs `--codecs` names.
    func videoCodecs() throws -> [VideoCodec] {
        guard let codecs = VideoCodec.list(self.codecs) else {
            throw ValidationError("--codecs takes vp9, vp8, h264 and av1 in any order, comma-separated, each once")
        }
        return codecs
    }

    func run() async throws {
        try await self.reportingFailures {
            if !self.testPattern, self.video == nil, self.audio == nil {
                let mirroring = DesktopMirroring(
                    options: self.capture,
                    limit: try self.capture.maximumSize(),
                    frameRate: self.fps, bitrate: self.bitrate * 1_000, codecs: try self.videoCodecs(),
                    latency: try self.latencyMode(), seconds: self.seconds, keepsApplication: self.keepApp,
                    withoutSound: self.noAudio)
                let summary = try await mirroring.run(device: self.options)
                try Output.result(json: summary.json, text: "\(summary)", asJSON: self.options.json)
                return
            }
            let seconds = self.seconds ?? 10
            let video = try self.video.map { try Y4MFile(path: $0) }
            let sound = try self.audio.map { try WAVFile(path: $0) }
            let width = video?.width ?? self.width
            let height = video?.height ?? self.height
            let fps = video.map { max(1, Int($0.frameRate.rounded())) } ?? self.fps
            var configuration = RemoteDisplayConfiguration(
                resolutions: [RemoteDisplayConfiguration.Resolution(width: width, height: height)],
                maximumFrameRate: fps, maximumVideoBitrate: self.bitrate * 1_000, videoCodecs: try self.videoCodecs(),
                audio: self.noAudio ? nil : RemoteDisplayConfiguration.Audio())
            configuration.setLatency(try self.latencyMode())
            let statistics = try await ReceiverLink.with(self.options) { link in
                let (channel, session) = try await link.beginRemoteDisplay(configuration)
                let resolution = session.configuration.resolution
                if video != nil, resolution.width != width || resolution.height != height {
                    await channel.endSession(stoppingApplication: !self.keepApp)
                    throw CommandFailure(
                        .offerRejected,
                        "the receiver takes at most \(resolution.width)x\(resolution.height); the video is \(width)x\(height)"
                    )
                }
                Output.progress(
                    "streaming \(resolution.width)x\(resolution.height) at \(fps) fps "
                        + "(\(session.configuration.videoCodec)) for \(seconds) s")
                let signal = try TestSignal(
                    width: resolution.width, height: resolution.height, frameRate: fps,
                    start: HostTime.now.advanced(by: .milliseconds(100)))
                let report = { (index: Int) in
                    guard index % fps == fps - 1 else { return }
                    Output.progress("\(session.currentStatistics)")
                }
                if video == nil, sound == nil {
                    try await signal.stream(seconds: seconds, to: session, tick: report)
                } else {
                    try await FileStreaming(signal: signal, video: video, sound: sound)
                        .stream(seconds: seconds, to: session, tick: report)
                }
                await session.playOut()
                let final = session.currentStatistics
                await channel.endSession(stoppingApplication: !self.keepApp)
                return final
            }
            try Output.result(json: statistics.json, text: "\(statistics)", asJSON: self.options.json)
        }
    }
}
