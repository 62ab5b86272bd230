import CastChannels
import CastEmulator
import CastLogging
import CastRemoteDisplay
import CastTestSupport
import CastTransport
import Foundation
import Testing

let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// A started emulator with the mirroring app launched and one sender whose
/// Remote Display channel is attached to the app's transport, over real TLS
/// and real UDP on loopback.
struct StreamingFixture {
    let emulator: CastEmulator
    let connection: CastConnection
    let receiver: ReceiverChannel
    let channel: RemoteDisplayChannel
    let application: ReceiverApplication

    /// Runs `body` with the fixture, in its turn among the real-time tests;
    /// tears everything down whatever happens.
    static func with(
        streaming: StreamingReceiverConfiguration = StreamingReceiverConfiguration(),
        _ body: (StreamingFixture) async throws -> Void
    ) async throws {
        try await RealTimeTurns.take { try await Self.run(streaming: streaming, body) }
    }

    private static func run(
        streaming: StreamingReceiverConfiguration, _ body: (StreamingFixture) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(logger: quietLogger)
        emulator.streaming = streaming
        try await emulator.start()
        let connection = CastConnection(host: "127.0.0.1", port: emulator.port, logger: quietLogger)
        let receiver = ReceiverChannel()
        let channel = RemoteDisplayChannel(logger: quietLogger)
        let result: Result<Void, any Error>
        do {
            try await connection.connect()
            try await connection.openVirtualConnection(to: "receiver-0")
            receiver.attach(to: connection, destinationID: "receiver-0", logger: quietLogger)
            let application = try await receiver.launch(appID: CastApplicationID.mirroring)
            let transportID = try #require(application.transportID)
            try await connection.openVirtualConnection(to: transportID)
            channel.attach(to: connection, destinationID: transportID, logger: quietLogger)
            try await body(
                StreamingFixture(
                    emulator: emulator, connection: connection, receiver: receiver, channel: channel,
                    application: application))
            result = .success(())
        } catch {
            result = .failure(error)
        }
        channel.currentSession?.stop()
        channel.detach()
        receiver.detach()
        await connection.close()
        await emulator.stop()
        try result.get()
    }

    /// A media source whose first frame is due shortly, registered as the
    /// emulator's PSNR reference (call before beginning the session).
    func prepareSource(width: Int, height: Int, frameRate: Int = 30) throws -> MediaSource {
        let source = try MediaSource(
            width: width, height: height, frameRate: frameRate, start: .now.advanced(by: .milliseconds(300)))
        self.emulator.streaming.videoReference = source.reference
        return source
    }

    /// Polls the emulator's report until `condition` holds or `timeout` passes; the last report.
    func report(
        within timeout: Duration = .seconds(10), until condition: (StreamingReport) -> Bool
    ) async throws -> StreamingReport? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let report = self.emulator.streamingReport, condition(report) { return report }
            try await Task.sleep(for: .milliseconds(20))
        }
        return self.emulator.streamingReport
    }
}

/// Pre-rendered test-pattern frames and a sine tone, fed to a session in
/// real time; the frames double as the emulator's PSNR reference.
final class MediaSource: Sendable {
    static let distinctFrames = 30

    let width: Int
    let height: Int
    let frameRate: Int
    let start: HostTime
    /// Tight I420 planes of each distinct frame.
    private let frames: [[[UInt8]]]

    init(width: Int, height: Int, frameRate: Int, start: HostTime) throws {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.start = start
        var buffer = try PixelBuffer(
            format: .i420, width: width, height: height, bytesPerRow: [width, width / 2, width / 2])
        var frames: [[[UInt8]]] = []
        for index in 0..<Self.distinctFrames {
            TestPattern().render(frame: index, into: &buffer)
            frames.append((0..<3).map { plane in buffer.withUnsafeBytes(ofPlane: plane) { Array($0) } })
        }
        self.frames = frames
    }

    /// Capture time of frame `index`.
    func pts(ofFrame index: Int) -> HostTime {
        self.start.advanced(by: .nanoseconds(Int64(index) * 1_000_000_000 / Int64(self.frameRate)))
    }

    /// The reference for the emulator: the luma of the frame captured at `time`, within 1 ms.
    var reference: StreamingReceiverConfiguration.VideoReference {
        { [self] time in
            let elapsed = self.start.duration(to: time).inSeconds
            let index = Int((elapsed * Double(self.frameRate)).rounded())
            guard index >= 0, abs(self.pts(ofFrame: index).duration(to: time)) < .milliseconds(1) else { return nil }
            return self.frames[index % Self.distinctFrames][0]
        }
    }

    /// Frame `index` drawn into a session buffer.
    func makeFrame(_ index: Int, for session: RemoteDisplaySession) throws -> PixelBuffer? {
        guard var buffer = session.createPixelBuffer() else { return nil }
        let planes = self.frames[index % Self.distinctFrames]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: planes[plane], bytesPerRow: plane == 0 ? self.width : self.width / 2)
        }
        return buffer
    }

    /// Streams `seconds` of video (and 440 Hz audio when the session has
    /// audio) in real time; returns how many video frames were handed over.
    @discardableResult
    func stream(seconds: Double, to session: RemoteDisplaySession, firstFrame: Int = 0) async throws -> Int {
        let frameCount = Int(seconds * Double(self.frameRate))
        var audioSent = Int(Double(firstFrame) / Double(self.frameRate) * 48_000)
        var handed = 0
        for index in firstFrame..<(firstFrame + frameCount) {
            let pts = self.pts(ofFrame: index)
            let wait = HostTime.now.duration(to: pts)
            if wait > .zero { try await Task.sleep(for: wait) }
            if let frame = try self.makeFrame(index, for: session), try session.enqueueVideoFrame(frame, pts: pts) {
                handed += 1
            }
            // Audio up to this frame's time, 10 ms buffers, as a capture callback would deliver.
            let audioTarget = Int(Double(index + 1) / Double(self.frameRate) * 48_000)
            while audioSent + 480 <= audioTarget, var buffer = session.newAudioBuffer() {
                let first = audioSent
                for channel in 0..<buffer.channelCount {
                    buffer.withUnsafeMutableSamples(ofChannel: channel) { samples in
                        for frame in 0..<480 {
                            samples[frame] = 0.3 * sin(2 * .pi * 440 * Float(first + frame) / 48_000)
                        }
                    }
                }
                buffer.frameCount = 480
                try session.enqueueAudio(
                    buffer, pts: self.start.advanced(by: .nanoseconds(Int64(first) * 1_000_000_000 / 48_000)))
                audioSent += 480
            }
        }
        return handed
    }
}

func abs(_ duration: Duration) -> Duration {
    duration < .zero ? .zero - duration : duration
}
