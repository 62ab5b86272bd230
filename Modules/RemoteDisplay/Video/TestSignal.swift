#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A test signal for a ``RemoteDisplaySession``: one second of
/// ``TestPattern`` pictures, repeating, and a 440 Hz tone, fed in real time.
///
/// Use it to check a receiver end to end before the app has pictures of its
/// own; `cast demo` and `cast screen` stream it. The pictures are rendered
/// once, up front, so feeding costs one copy per frame, and
/// ``luma(at:)`` gives a receiver-side check the exact picture captured at a
/// given time.
///
/// ```swift
/// let signal = try TestSignal(width: 1280, height: 720, frameRate: 30, start: .now)
/// try await signal.stream(seconds: 5, to: session)
/// ```
public struct TestSignal: Sendable {
    /// Picture width.
    public let width: Int
    /// Picture height.
    public let height: Int
    /// Frames per second.
    public let frameRate: Int
    /// Capture time of frame 0: the `start` given, or the moment the pictures
    /// were ready if that start had passed.
    public let start: HostTime
    /// Tight I420 planes of each distinct frame.
    private let frames: [[[UInt8]]]

    /// Renders one second of pictures of `width`×`height`.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration``
    ///   for a size I420 cannot hold or a frame rate outside 1…120.
    public init(width: Int, height: Int, frameRate: Int = 30, start: HostTime) throws(CastRemoteDisplayError) {
        guard (1...120).contains(frameRate) else {
            throw CastRemoteDisplayError(.invalidConfiguration, "a test signal needs 1…120 frames per second")
        }
        var buffer = try PixelBuffer(
            format: .i420, width: width, height: height, bytesPerRow: [width, width / 2, width / 2])
        var frames: [[[UInt8]]] = []
        for index in 0..<frameRate {
            TestPattern().render(frame: index, into: &buffer)
            frames.append((0..<3).map { plane in buffer.withUnsafeBytes(ofPlane: plane) { Array($0) } })
        }
        self.width = width
        self.height = height
        self.frameRate = frameRate
        // Drawing the pictures takes a while (long in a debug build): a start
        // that passed meanwhile moves to now, or the first frames would all be
        // late at once and push each other out of the encoder's backlog.
        self.start = max(start, HostTime.now)
        self.frames = frames
    }

    /// Capture time of frame `index`.
    public func pts(ofFrame index: Int) -> HostTime {
        self.start.advanced(by: .nanoseconds(Int64(index) * 1_000_000_000 / Int64(self.frameRate)))
    }

    /// The luma plane (tight rows) of the frame captured at `time`, within
    /// 1 ms; `nil` for a time no frame was captured at.
    public func luma(at time: HostTime) -> [UInt8]? {
        let index = Int((self.start.duration(to: time) / .seconds(1) * Double(self.frameRate)).rounded())
        let drift = self.pts(ofFrame: index).duration(to: time)
        guard index >= 0, drift < .milliseconds(1), drift > .milliseconds(-1) else { return nil }
        return self.frames[index % self.frames.count][0]
    }

    /// Frame `index` copied into one of `session`'s pooled buffers; `nil`
    /// while every buffer is in use.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration``
    ///   when the session's pictures are not this signal's size.
    public func makeFrame(_ index: Int, for session: RemoteDisplaySession) throws(CastRemoteDisplayError)
        -> PixelBuffer?
    {
        guard var buffer = session.createPixelBuffer() else { return nil }
        let planes = self.frames[index % self.frames.count]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: planes[plane], bytesPerRow: plane == 0 ? self.width : self.width / 2)
        }
        return buffer
    }

    /// Streams `seconds` of video from frame `firstFrame` on, each frame
    /// enqueued at its capture time, with the tone in 10 ms buffers up to
    /// each frame's time when the session has audio. Calls `tick` with each
    /// frame's index after enqueuing it.
    ///
    /// - Returns: how many video frames the session took.
    /// - Throws: the session's ``CastRemoteDisplayError``, or `CancellationError`.
    @discardableResult
    public func stream(
        seconds: Double, to session: RemoteDisplaySession, firstFrame: Int = 0, tick: (Int) -> Void = { _ in }
    ) async throws -> Int {
        let frameCount = Int(seconds * Double(self.frameRate))
        var audioSent = firstFrame * 48_000 / self.frameRate
        var handed = 0
        for index in firstFrame..<(firstFrame + frameCount) {
            let pts = self.pts(ofFrame: index)
            let wait = HostTime.now.duration(to: pts)
            if wait > .zero { try await Task.sleep(for: wait) }
            if let frame = try self.makeFrame(index, for: session), try session.enqueueVideoFrame(frame, pts: pts) {
                handed += 1
            }
            let audioTarget = (index + 1) * 48_000 / self.frameRate
            while audioSent + 480 <= audioTarget, var buffer = session.newAudioBuffer() {
                let first = audioSent
                for channel in 0..<buffer.channelCount {
                    buffer.withUnsafeMutableSamples(ofChannel: channel) { samples in
                        for frame in 0..<480 {
                            samples[frame] = 0.3 * sinf(2 * .pi * 440 * Float(first + frame) / 48_000)
                        }
                    }
                }
                buffer.frameCount = 480
                try session.enqueueAudio(
                    buffer, pts: self.start.advanced(by: .nanoseconds(Int64(first) * 1_000_000_000 / 48_000)))
                audioSent += 480
            }
            tick(index)
        }
        return handed
    }
}
