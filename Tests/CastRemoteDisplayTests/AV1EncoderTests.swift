import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Foundation
import Testing

/// AV1 through libaom's realtime mode, checked by decoders we did not
/// write: dav1d through FFmpeg (the emulator's, as Open Screen's receiver
/// decodes AV1) frame by frame, and ffprobe reading the stream.
@Suite(.timeLimit(.minutes(10))) struct AV1EncoderTests {
    /// One key frame, then frames that each decode to a faithful picture.
    /// Measured (libaom 3.6, dav1d 1.0): 52.6 dB mean, 50.0 dB worst frame;
    /// the floors leave about 5 dB.
    @Test func aMovingPatternDecodesFrameByFrame() async throws {
        let results = try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(codec: .av1, width: 640, height: 360, bitrate: 2_000_000))
            let pool = try PixelBufferPool(width: 640, height: 360)
            let decoder = LibavcodecDecoder(codec: .av1)
            let pattern = TestPattern()
            return try (0..<30).map { index -> (key: Bool, psnr: Double?, bytes: [UInt8]) in
                var frame = try unwrap(pool.makeBuffer())
                pattern.render(frame: index, into: &frame)
                let encoded = try encoder.encode(frame, pts: VideoEncoderTests.pts(index))
                return (encoded.isKeyFrame, decoder.decode(encoded.bytes).map { lumaPSNR(frame, $0) }, encoded.bytes)
            }
        }
        #expect(results.map(\.key) == [true] + Array(repeating: false, count: 29))
        // Each temporal unit opens with a temporal delimiter OBU (type 2; AV1 spec §5.3.1: obu_type in bits 6…3).
        #expect(results.allSatisfy { ($0.bytes.first ?? 0) >> 3 & 0x0F == 2 })
        let psnrs = results.compactMap(\.psnr)
        try #require(psnrs.count == results.count, "dav1d decoded \(psnrs.count) of \(results.count) frames")
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        print("AV1 360p 2 Mbit/s: mean \(mean) dB, worst \(psnrs.min()!) dB")
        #expect(mean > 47, "mean luma PSNR \(mean) dB")
        #expect(psnrs.min()! > 44, "worst frame \(psnrs.min()!) dB")

        let probe = try await CodecRuns.probe(
            results.map(\.bytes), arguments: ["-f", "obu"], entries: "codec_name,width,height,nb_read_frames")
        #expect(probe.status == 0, "\(probe.stderr)")
        for line in ["codec_name=av1", "width=640", "height=360", "nb_read_frames=30"] {
            #expect(probe.stdout.contains(line), "ffprobe said: \(probe.stdout)")
        }
    }

    /// A key frame on request (a receiver's PLI), and the bitrate followed.
    @Test func keyFramesOnRequestAndTheBitrateFollowed() async throws {
        let (keys, high, low) = try await CodecRuns.keyFramesAndSizes(.av1)
        #expect(keys == [0, 40])
        // 400 kbit/s at 30 fps is 1 667 bytes a frame; at 1.5 Mbit/s this easy
        // picture needs less than its 6 250. Measured (libaom 3.6): 3 066, then 1 537.
        #expect(low < 1_667 * 1.3, "bytes per frame at 400 kbit/s: \(low)")
        #expect(low < high * 0.75, "bytes per frame \(high) at 1.5 Mbit/s, \(low) at 400 kbit/s")
    }
}
