// Every codec Remote Display offers, side by side (issue 52): VideoEncoder
// encoding the same moving test pattern at 1280×720, 30 fps, 3 Mbit/s, as a
// mirroring session configures it — VP8 and VP9 (libvpx), H.264 (OpenH264),
// AV1 (libaom realtime). Per sample: 30 frames (one second of video) after a
// warm-up, so the wall and CPU times are per second of video, and the bytes
// written are the bitrate the encoder delivered against the 3 Mbit/s asked.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay

/// The bitrate every codec is asked for, bit/s.
let codecBenchmarkBitrate = 3_000_000

func codecBenchmarks() {
    let delivered = BenchmarkMetric.custom("kbit/s delivered (3000 asked)", polarity: .prefersSmaller)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, delivered], timeUnits: .milliseconds, maxDuration: .seconds(10),
        maxIterations: 20)
    for codec in [VideoCodec.vp8, .vp9, .h264, .av1] {
        Benchmark("Codec \(codec) VideoEncoder 1280x720 30 fps 3 Mbit/s ×30", configuration: configuration) {
            benchmark in
            let source = try SourceFrames(width: 1_280, height: 720)
            let pool = try PixelBufferPool(width: source.width, height: source.height)
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(
                    codec: codec, width: source.width, height: source.height, frameRate: 30,
                    bitrate: codecBenchmarkBitrate))
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
            benchmark.measurement(delivered, bytes * 8 / 1_000 * 30 / framesPerSample)
        }
    }
}
