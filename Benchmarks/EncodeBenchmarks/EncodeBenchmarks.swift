// The encode hot path against the C libraries called directly, in one run.
//
// Video: pool buffer → VideoEncoder → EncodedFrame, against raw libvpx with
// identical settings (RawCodecs/raw_codecs.c), on the same synthetic moving
// frames at 1280×720 and 1920×1080. Both sides copy a pre-rendered frame into
// their input and encode it; the bitstreams must come out byte-identical,
// which the setup checks before measuring. Target: time ratio ≤ 1.03 and no
// allocation per frame in steady state.
//
// Audio: AudioInput (44.1 kHz stereo int16 → 48 kHz float) + Opus per 10 ms,
// against raw libsamplerate + libopus. Target: time ratio ≤ 1.05.
//
// Each sample encodes `framesPerSample` frames after a warm-up, so the
// numbers are per frame (video) or per 10 ms (audio) once divided.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay
import Foundation
import RawCodecs

let framesPerSample = 30
let distinctFrames = 30

/// Pre-rendered I420 frames (tight planes), so rendering is not measured.
struct SourceFrames {
    let width: Int
    let height: Int
    let planes: [[[UInt8]]]

    init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        var frames: [[[UInt8]]] = []
        var buffer = try PixelBuffer(
            format: .i420, width: width, height: height, bytesPerRow: [width, width / 2, width / 2])
        for index in 0..<distinctFrames {
            TestPattern().render(frame: index, into: &buffer)
            frames.append((0..<3).map { plane in buffer.withUnsafeBytes(ofPlane: plane) { Array($0) } })
        }
        self.planes = frames
    }

    func rowBytes(_ plane: Int) -> Int { plane == 0 ? self.width : self.width / 2 }
    func rows(_ plane: Int) -> Int { plane == 0 ? self.height : self.height / 2 }
}

func pts(_ index: Int) -> HostTime { HostTime(nanoseconds: Int64(index) * 33_333_333) }

/// Ours: draw (copy) into a pooled buffer, encode, drop the encoded frame.
struct SwiftVideoPath: ~Copyable {
    let source: SourceFrames
    let pool: PixelBufferPool
    var encoder: VideoEncoder
    var index = 0

    init(source: SourceFrames) throws {
        let pool = try PixelBufferPool(width: source.width, height: source.height)
        let encoder = try VideoEncoder(
            configuration: VideoEncoderConfiguration(width: source.width, height: source.height))
        self.source = source
        self.pool = pool
        self.encoder = encoder
    }

    /// Encodes the next frame from a pooled buffer and drops the result.
    mutating func encodeNext() throws {
        guard var buffer = self.pool.makeBuffer() else {
            throw BenchmarkSupportError(description: "pixel buffer pool exhausted")
        }
        try self.fill(&buffer)
        let encoded = try self.encoder.encode(buffer, pts: pts(self.index))
        self.index += 1
        blackHole(encoded.byteCount)
    }

    /// Encodes the next frame and returns its bytes (for the bitstream check).
    mutating func encodeNextKeepingBytes() throws -> [UInt8] {
        var buffer = try PixelBuffer(format: .i420, width: self.source.width, height: self.source.height)
        try self.fill(&buffer)
        let encoded = try self.encoder.encode(buffer, pts: pts(self.index))
        self.index += 1
        return encoded.bytes
    }

    private func fill(_ buffer: inout PixelBuffer) throws {
        let frame = self.source.planes[self.index % distinctFrames]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: frame[plane], bytesPerRow: self.source.rowBytes(plane))
        }
    }
}

/// The baseline: copy into libvpx's own image, encode.
final class RawVideoPath {
    let source: SourceFrames
    let encoder: OpaquePointer
    var index = 0

    init(source: SourceFrames) throws {
        self.source = source
        let configuration = VideoEncoderConfiguration(width: source.width, height: source.height)
        guard
            let encoder = raw_vp8_create(
                Int32(source.width), Int32(source.height), Int32(configuration.frameRate),
                Int32(configuration.bitrate), Int32(configuration.threadCount), Int32(configuration.speed)
            )
        else { throw BenchmarkSupportError(description: "raw_vp8_create failed") }
        self.encoder = encoder
    }

    deinit { raw_vp8_destroy(self.encoder) }

    /// Encodes the next frame; returns a copy of its bytes when asked to.
    @discardableResult
    func encodeNext(keepingBytes: Bool = false) -> [UInt8] {
        let frame = self.source.planes[self.index % distinctFrames]
        for plane in 0..<3 {
            var stride: Int32 = 0
            guard let destination = raw_vp8_plane(self.encoder, Int32(plane), &stride) else { return [] }
            frame[plane].withUnsafeBufferPointer { source in
                for row in 0..<self.source.rows(plane) {
                    (destination + row * Int(stride)).update(
                        from: source.baseAddress! + row * self.source.rowBytes(plane),
                        count: self.source.rowBytes(plane)
                    )
                }
            }
        }
        var data: UnsafePointer<UInt8>? = nil
        let size = raw_vp8_encode(self.encoder, pts(self.index).nanoseconds / 1_000, self.index == 0 ? 1 : 0, &data)
        self.index += 1
        blackHole(size)
        return keepingBytes && size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }
}

/// Identical settings must give identical bitstreams; otherwise the ratio means nothing.
func checkIdenticalBitstreams(_ source: SourceFrames) throws {
    var ours = try SwiftVideoPath(source: source)
    let raw = try RawVideoPath(source: source)
    for frame in 0..<10 {
        let mine = try ours.encodeNextKeepingBytes()
        let theirs = raw.encodeNext(keepingBytes: true)
        guard mine == theirs else {
            throw BenchmarkSupportError(
                description:
                    "frame \(frame): VideoEncoder and raw libvpx differ (\(mine.count) vs \(theirs.count) bytes)"
            )
        }
    }
}

let audioChunks: [[Int16]] = (0..<100).map { chunk in
    var samples: [Int16] = []
    for index in (chunk * 441)..<((chunk + 1) * 441) {
        let phase = 2 * Double.pi * 1_000 * Double(index) / 44_100
        let value = Int16(16_000 * sin(phase))
        samples.append(value)
        samples.append(value)
    }
    return samples
}

let benchmarks: @Sendable () -> Void = {
    // Microseconds: an audio sample takes about 15 ms, and in whole
    // milliseconds its ratio could only be 1, 16 ÷ 15 or 15 ÷ 16.
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        timeUnits: .microseconds,
        maxDuration: .seconds(5),
        maxIterations: 40
    )
    streamingBenchmarks()
    audioStreamingBenchmarks()
    speakerGroupBenchmarks()
    conversionBenchmarks()
    codecBenchmarks()

    for (width, height) in [(1280, 720), (1920, 1080)] {
        let label = "\(width)x\(height)"
        Benchmark("VP8 raw libvpx \(label) ×\(framesPerSample)") { benchmark in
            let raw = try RawVideoPath(source: SourceFrames(width: width, height: height))
            for _ in 0..<5 { raw.encodeNext() }
            benchmark.startMeasurement()
            for _ in 0..<framesPerSample { raw.encodeNext() }
        }
        Benchmark("VP8 VideoEncoder \(label) ×\(framesPerSample)") { benchmark in
            let source = try SourceFrames(width: width, height: height)
            try checkIdenticalBitstreams(source)
            var ours = try SwiftVideoPath(source: source)
            for _ in 0..<5 { try ours.encodeNext() }
            benchmark.startMeasurement()
            for _ in 0..<framesPerSample { try ours.encodeNext() }
        }
    }

    Benchmark("Audio raw libsamplerate+libopus ×100 (1 s)") { benchmark in
        guard let raw = raw_audio_create(44_100, 2, 128_000) else {
            throw BenchmarkSupportError(description: "raw_audio_create failed")
        }
        defer { raw_audio_destroy(raw) }
        var bytes = 0
        for chunk in audioChunks.prefix(5) { _ = raw_audio_process(raw, chunk, 441, &bytes) }
        benchmark.startMeasurement()
        for chunk in audioChunks { blackHole(raw_audio_process(raw, chunk, 441, &bytes)) }
    }

    Benchmark("Audio AudioInput+Opus ×100 (1 s)") { benchmark in
        let queue = try AudioFrameQueue()
        var input = try AudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2, queue: queue)
        var encoder = try AudioEncoder(queue: queue, bitrate: 128_000)
        var pts = HostTime(nanoseconds: 0)
        func step(_ chunk: [Int16]) throws {
            blackHole(try input.enqueue(interleaved: chunk, pts: pts))
            pts = pts.advanced(byFrames: 441, sampleRate: 44_100)
            while let frame = try encoder.encodeNextFrame() { blackHole(frame.byteCount) }
        }
        for chunk in audioChunks.prefix(5) { try step(chunk) }
        benchmark.startMeasurement()
        for chunk in audioChunks { try step(chunk) }
    }
}
