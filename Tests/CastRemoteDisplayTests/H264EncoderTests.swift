import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Foundation
import Testing

/// H.264 through OpenH264, checked by decoders we did not write: FFmpeg's
/// (libavcodec, the emulator's, as Open Screen's receiver decodes) frame by
/// frame, and ffprobe reading the stream's profile.
@Suite(.timeLimit(.minutes(10))) struct H264EncoderTests {
    /// One IDR, then P frames that each decode to a faithful picture, in
    /// Constrained Baseline (no B-frames: nothing waits for a later frame).
    /// Measured (OpenH264 2.3.1, FFmpeg 5.1): 59.9 dB mean, 48.4 dB worst
    /// frame; the floors leave about 5 dB.
    @Test func aMovingPatternDecodesFrameByFrameInConstrainedBaseline() async throws {
        let results = try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(codec: .h264, width: 640, height: 360, bitrate: 2_000_000))
            let pool = try PixelBufferPool(width: 640, height: 360)
            let decoder = LibavcodecDecoder(codec: .h264)
            let pattern = TestPattern()
            return try (0..<30).map { index -> (key: Bool, psnr: Double?, bytes: [UInt8]) in
                var frame = try unwrap(pool.makeBuffer())
                pattern.render(frame: index, into: &frame)
                let encoded = try encoder.encode(frame, pts: VideoEncoderTests.pts(index))
                return (encoded.isKeyFrame, decoder.decode(encoded.bytes).map { lumaPSNR(frame, $0) }, encoded.bytes)
            }
        }
        #expect(results.map(\.key) == [true] + Array(repeating: false, count: 29))
        // Annex B: each frame starts with a start code; the key frame carries SPS (7), PPS (8) and an IDR slice (5).
        #expect(results.allSatisfy { $0.bytes.starts(with: [0, 0, 0, 1]) })
        #expect(Set(Self.nalTypes(results[0].bytes)).isSuperset(of: [7, 8, 5]))
        #expect(results.dropFirst().allSatisfy { !Self.nalTypes($0.bytes).contains(5) })
        let psnrs = results.compactMap(\.psnr)
        try #require(psnrs.count == results.count, "FFmpeg decoded \(psnrs.count) of \(results.count) frames")
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        print("H.264 360p 2 Mbit/s: mean \(mean) dB, worst \(psnrs.min()!) dB")
        #expect(mean > 52, "mean luma PSNR \(mean) dB")
        #expect(psnrs.min()! > 43, "worst frame \(psnrs.min()!) dB")

        let probe = try await CodecRuns.probe(
            results.map(\.bytes), arguments: [], entries: "codec_name,profile,width,height,nb_read_frames")
        #expect(probe.status == 0, "\(probe.stderr)")
        for line in ["codec_name=h264", "profile=Constrained Baseline", "width=640", "height=360", "nb_read_frames=30"]
        {
            #expect(probe.stdout.contains(line), "ffprobe said: \(probe.stdout)")
        }
    }

    /// A key frame on request (a receiver's PLI), and the bitrate followed:
    /// about a quarter of the bitrate gives markedly smaller frames.
    @Test func keyFramesOnRequestAndTheBitrateFollowed() async throws {
        let (keys, high, low) = try await CodecRuns.keyFramesAndSizes(.h264)
        #expect(keys == [0, 40])
        // 1.5 Mbit/s at 30 fps is 6 250 bytes a frame, 400 kbit/s is 1 667. Measured
        // (OpenH264 2.3.1): 6 190 before, 2 120 from half a second to a second after.
        #expect(high > 4_000, "bytes per frame at 1.5 Mbit/s: \(high)")
        #expect(low < high / 2, "bytes per frame \(high) at 1.5 Mbit/s, \(low) at 400 kbit/s")
    }

    /// The NAL unit types of an Annex B frame, in order.
    static func nalTypes(_ bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                types.append(bytes[index + 3] & 0x1F)
                index += 3
            }
            index += 1
        }
        return types
    }
}
