// Every codec Remote Display offers, side by side (issue 52): VideoEncoder
// encoding the same moving test pattern at 1280×720 (3 Mbit/s) and 1920×1080
// (5 Mbit/s), 30 fps, as a mirroring session configures it — VP8 and VP9 (libvpx), H.264 (OpenH264),
// AV1 (libaom realtime). Per sample: 30 frames (one second of video) after a
// warm-up, so the wall and CPU times are per second of video, and the bytes
// written are the bitrate the encoder delivered against the bitrate asked.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay

func codecBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, BenchmarkMetric.custom("kbit/s delivered", polarity: .prefersSmaller)],
        timeUnits: .milliseconds, maxDuration: .seconds(10), maxIterations: 20)
    for (width, height, bitrate) in [(1_280, 720, 3_000_000), (1_920, 1_080, 5_000_000)] {
        for codec in [VideoCodec.vp8, .vp9, .h264, .av1] {
            let name = "Codec \(codec) VideoEncoder \(width)x\(height) 30 fps \(bitrate / 1_000_000) Mbit/s ×30"
            Benchmark(name, configuration: configuration) { benchmark in
                try encodeOneSecond(codec, width: width, height: height, bitrate: bitrate, benchmark)
            }
        }
    }
}

/// Encodes a warm-up, then one measured second of the pattern with `codec`; records the bitrate delivered.
private func encodeOneSecond(_ codec: VideoCodec, width: Int, height: Int, bitrate: Int, _ benchmark: Benchmark)
    throws
{
    let source = try SourceFrames(width: width, height: height)
    let pool = try PixelBufferPool(width: source.width, height: source.height)
    var encoder = try VideoEncoder(
        configuration: VideoEncoderConfiguration(
            codec: codec, width: source.width, height: source.height, frameRate: 30, bitrate: bitrate))
    var index = 0
    var bytes = 0
    /// Encodes the next frame of the pattern from a pooled buffer; its size.
    func encodeNext() throws -> Int {
        guard var buffer = pool.makeBuffer() else {
            throw BenchmarkSupportError(description: "pixel buffer pool exhausted")
        }
        let frame = source.planes[index % distinctFrames]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: frame[plane], bytesPerRow: source.rowBytes(plane))
        }
        let encoded = try encoder.encode(buffer, pts: pts(index))
        index += 1
        return encoded.byteCount
    }
    for _ in 0..<5 { _ = try encodeNext() }
    benchmark.startMeasurement()
    for _ in 0..<framesPerSample { bytes += try encodeNext() }
    benchmark.stopMeasurement()
    benchmark.measurement(
        BenchmarkMetric.custom("kbit/s delivered", polarity: .prefersSmaller),
        bytes * 8 / 1_000 * 30 / framesPerSample)
}
