import CastRemoteDisplay
import CastTestSupport
import Foundation

/// What the H.264 and AV1 suites run the same way for each codec.
enum CodecRuns {
    /// 90 frames of a fast pattern at 640×360 from 1.5 Mbit/s: a key frame
    /// asked for at frame 40, the bitrate lowered to 400 kbit/s at 45. The
    /// frames that came as key frames, and the average bytes a frame before
    /// the change (10…39) and from half a second after it (60…89).
    static func keyFramesAndSizes(_ codec: VideoCodec) async throws -> (keys: [Int], high: Double, low: Double) {
        try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(codec: codec, width: 640, height: 360, bitrate: 1_500_000))
            var frame = try PixelBuffer(format: .i420, width: 640, height: 360)
            var keys: [Int] = []
            var sizes: [Int] = []
            for index in 0..<90 {
                if index == 40 { encoder.requestKeyFrame() }
                if index == 45 { try encoder.setBitrate(400_000) }
                TestPattern(speed: 7).render(frame: index, into: &frame)
                let encoded = try encoder.encode(frame, pts: VideoEncoderTests.pts(index))
                if encoded.isKeyFrame { keys.append(index) }
                sizes.append(encoded.bytes.count)
            }
            let average = { (range: Range<Int>) in Double(sizes[range].reduce(0, +)) / Double(range.count) }
            return (keys, average(10..<40), average(60..<90))
        }
    }

    /// What ffprobe (`arguments` first, then `-show_entries ENTRIES`) says of
    /// `frames` written one after another to a file.
    static func probe(_ frames: [[UInt8]], arguments: [String], entries: String) async throws -> CommandOutput {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cast-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(frames.joined()).write(to: file)
        return try await CommandOutput.of(
            ["ffprobe", "-v", "error"] + arguments + [
                "-count_frames", "-show_entries", "stream=\(entries)", "-of", "default=noprint_wrappers=1", file.path,
            ])
    }
}
