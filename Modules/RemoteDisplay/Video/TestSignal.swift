import CYUV
public import CastStreaming

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A test signal for a `RemoteDisplaySession`: one second of
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
    /// How the pictures are handed to the session: `nil` as I420 planes
    /// copied into each buffer, else as packed pictures of this format that
    /// a ``PackedPictureConverter`` converts, as an app that renders RGB does.
    public let pictureFormat: PackedPixelFormat?
    /// Tight I420 planes of each distinct frame; with a ``pictureFormat``,
    /// libyuv's conversion of the packed picture (what the app drew).
    private let frames: [[[UInt8]]]
    /// Each distinct frame as a tight packed picture, with a ``pictureFormat``.
    private let packed: [[UInt8]]

    /// Renders one second of pictures of `width`×`height`.
    ///
    /// - Parameters:
    ///   - width: picture width, even.
    ///   - height: picture height, even.
    ///   - frameRate: frames per second, 1…120.
    ///   - start: the capture time of frame 0 (now, if it has passed once the pictures are drawn).
    ///   - pictureFormat: `nil` (the default) hands I420 planes to the
    ///     session; a format hands it pictures of that format, converted
    ///     into each buffer.
    /// - Throws: `CastRemoteDisplayError.Code.invalidConfiguration`
    ///   for a size I420 cannot hold or a frame rate outside 1…120.
    public init(
        width: Int, height: Int, frameRate: Int = 30, start: HostTime, pictureFormat: PackedPixelFormat? = nil
    ) throws(CastRemoteDisplayError) {
        guard (1...120).contains(frameRate) else {
            throw CastRemoteDisplayError(.invalidConfiguration, "a test signal needs 1…120 frames per second")
        }
        var buffer = try PixelBuffer(
            format: .i420, width: width, height: height, bytesPerRow: [width, width / 2, width / 2])
        var frames: [[[UInt8]]] = []
        var packed: [[UInt8]] = []
        var converter = PackedPictureConverter()
        for index in 0..<frameRate {
            TestPattern().render(frame: index, into: &buffer)
            if let pictureFormat {
                let picture = try Self.packedPicture(of: buffer, as: pictureFormat)
                try converter.convert(
                    tightPixels: picture, width: width, height: height, format: pictureFormat, into: &buffer)
                packed.append(picture)
            }
            frames.append((0..<3).map { plane in buffer.withUnsafeBytes(ofPlane: plane) { Array($0) } })
        }
        self.pictureFormat = pictureFormat
        self.packed = packed
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
    /// - Throws: `CastRemoteDisplayError.Code.invalidConfiguration`
    ///   when the session's pictures are not this signal's size.
    public func makeFrame(_ index: Int, for session: RemoteDisplaySession) throws(CastRemoteDisplayError)
        -> PixelBuffer?
    {
        guard var buffer = session.createPixelBuffer() else { return nil }
        if let pictureFormat = self.pictureFormat {
            guard buffer.width == self.width, buffer.height == self.height else {
                throw CastRemoteDisplayError(
                    .invalidConfiguration,
                    "the session's pictures are \(buffer.width)×\(buffer.height), the signal's \(self.width)×\(self.height)"
                )
            }
            // Same size: converted straight into the buffer, nothing allocated.
            var converter = PackedPictureConverter()
            try converter.convert(
                tightPixels: self.packed[index % self.packed.count], width: self.width, height: self.height,
                format: pictureFormat, into: &buffer)
            return buffer
        }
        let planes = self.frames[index % self.frames.count]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: planes[plane], bytesPerRow: plane == 0 ? self.width : self.width / 2)
        }
        return buffer
    }

    /// `picture` (tight I420) as a tight packed picture of `format` (libyuv's
    /// BT.601 conversion to BGRA, its bytes then reordered).
    private static func packedPicture(
        of picture: borrowing PixelBuffer, as format: PackedPixelFormat
    ) throws(CastRemoteDisplayError) -> [UInt8] {
        let width = picture.width
        let height = picture.height
        var bgra = [UInt8](repeating: 0, count: width * height * 4)
        let planes = (0..<3).map { plane in picture.withUnsafeBytes(ofPlane: plane) { Array($0) } }
        bgra.withUnsafeMutableBufferPointer { target in
            _ = I420ToARGB(
                planes[0], Int32(width), planes[1], Int32(width / 2), planes[2], Int32(width / 2),
                target.baseAddress, Int32(width * 4), Int32(width), Int32(height))
        }
        // Bytes of each BGRA pixel that make a pixel of `format`, in order.
        let order: [Int]
        switch format {
        case .bgra: return bgra
        case .rgba: order = [2, 1, 0, 3]
        case .argb: order = [3, 2, 1, 0]
        case .rgb24: order = [2, 1, 0]
        case .bgr24: order = [0, 1, 2]
        }
        var packed = [UInt8]()
        packed.reserveCapacity(width * height * order.count)
        for pixel in stride(from: 0, to: bgra.count, by: 4) {
            for byte in order { packed.append(bgra[pixel + byte]) }
        }
        return packed
    }

    /// Streams `seconds` of video from frame `firstFrame` on, each frame
    /// enqueued at its capture time, with the tone in 10 ms buffers up to
    /// each frame's time when the session has audio. Calls `tick` with each
    /// frame's index after enqueuing it.
    ///
    /// - Returns: how many video frames the session took.
    /// - Throws: the session's `CastRemoteDisplayError`, or `CancellationError`.
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
