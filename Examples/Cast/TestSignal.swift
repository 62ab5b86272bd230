import CastRemoteDisplay
import Foundation

/// The test signal `cast demo` (and `cast screen`) streams: the moving test
/// pattern, and a 440 Hz tone, fed in real time.
///
/// One second of pictures is rendered up front and repeats, so feeding
/// costs a copy per frame and the emulator's PSNR reference is a lookup.
struct TestSignal: Sendable {
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
        self.frames = (0..<frameRate).map { index in
            TestPattern().render(frame: index, into: &buffer)
            return (0..<3).map { plane in buffer.withUnsafeBytes(ofPlane: plane) { Array($0) } }
        }
    }

    /// Capture time of frame `index`.
    func pts(ofFrame index: Int) -> HostTime {
        self.start.advanced(by: .nanoseconds(Int64(index) * 1_000_000_000 / Int64(self.frameRate)))
    }

    /// The luma plane of the frame captured at `time` (within 1 ms), for the emulator's PSNR.
    func luma(at time: HostTime) -> [UInt8]? {
        let index = Int((self.start.duration(to: time) / .seconds(1) * Double(self.frameRate)).rounded())
        let drift = self.pts(ofFrame: index).duration(to: time)
        guard index >= 0, drift < .milliseconds(1), drift > .milliseconds(-1) else { return nil }
        return self.frames[index % self.frames.count][0]
    }

    /// Streams `seconds` to `session` in real time, calling `tick` after each
    /// video frame; returns the number of video frames handed over.
    @discardableResult
    func stream(
        seconds: Double, to session: RemoteDisplaySession, tick: (Int) -> Void = { _ in }
    ) async throws -> Int {
        var audioSent = 0
        var handed = 0
        for index in 0..<Int(seconds * Double(self.frameRate)) {
            let pts = self.pts(ofFrame: index)
            let wait = HostTime.now.duration(to: pts)
            if wait > .zero { try await Task.sleep(for: wait) }
            if var buffer = session.createPixelBuffer() {
                let planes = self.frames[index % self.frames.count]
                for plane in 0..<3 {
                    try buffer.copyPlane(
                        plane, from: planes[plane], bytesPerRow: plane == 0 ? self.width : self.width / 2)
                }
                if try session.enqueueVideoFrame(buffer, pts: pts) { handed += 1 }
            }
            let audioTarget = (index + 1) * 48_000 / self.frameRate
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
            tick(index)
        }
        return handed
    }
}
