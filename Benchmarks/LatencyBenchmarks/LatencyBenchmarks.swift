// Draw → shown and picture quality (issue 52), the emulator as the receiver
// in this process: its decoders (libvpx, FFmpeg's H.264 decoder, dav1d)
// compare each picture with the test pattern drawn at its capture time
// (luma PSNR), and it reports when each frame is shown — its playout time,
// or when it was decoded if that was later.
//
// Latency: 720p30 VP8 for 10 s, the emulator dropping 1 % of datagrams and
// delaying each by up to 10 ms, at `--latency low`, `normal` and `smooth`:
// draw → shown p50/p99 (ms), frames on time (‰). Target at low: p99 ≤ 150 ms
// and ≥ 990 ‰ on time.
//
// Quality: each codec at 720p30, 3 Mbit/s asked, 5 s on a clean link: mean
// and lowest luma PSNR (dB × 10). Target: ≥ 350 (35 dB).
//
// The receiver decodes in this process: its CPU competes with the sender's
// on this machine's two cores, as a second device's would not.

import Benchmark
import BenchmarkSupport
import CastEmulator
import CastLogging
import CastRemoteDisplay

let benchmarks: @Sendable () -> Void = {
    let p50 = BenchmarkMetric.custom("draw → shown p50 (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    let p99 = BenchmarkMetric.custom("draw → shown p99 (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    let onTime = BenchmarkMetric.custom("frames on time (‰)", polarity: .prefersLarger, useScalingFactor: false)
    let meanPSNR = BenchmarkMetric.custom("mean luma PSNR (dB × 10)", polarity: .prefersLarger, useScalingFactor: false)
    let lowestPSNR = BenchmarkMetric.custom(
        "lowest luma PSNR (dB × 10)", polarity: .prefersLarger, useScalingFactor: false)
    let dropped = BenchmarkMetric.custom(
        "frames the sender dropped (late to send)", polarity: .prefersSmaller, useScalingFactor: false)
    let highest = BenchmarkMetric.custom(
        "highest target delay sent (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    let once = Benchmark.Configuration(
        metrics: [p50, p99, onTime, meanPSNR, lowestPSNR, dropped, highest], warmupIterations: 0,
        maxDuration: .seconds(120),
        maxIterations: 1)
    /// What the emulator measured of the video, as the benchmark's figures.
    let record = { @Sendable (benchmark: Benchmark, video: StreamReport) in
        benchmark.measurement(p50, milliseconds(video.shownLatencyP50))
        benchmark.measurement(p99, milliseconds(video.shownLatencyP99))
        benchmark.measurement(
            onTime, (video.framesDecoded - video.framesLate) * 1_000 / max(1, video.framesDecoded))
        benchmark.measurement(meanPSNR, Int(((video.meanPSNR ?? 0) * 10).rounded()))
        benchmark.measurement(lowestPSNR, Int(((video.minimumPSNR ?? 0) * 10).rounded()))
    }
    let modes: [(String, RemoteDisplayConfiguration.Latency)] = [
        ("low", .low), ("normal", .normal), ("smooth", .smooth),
    ]
    for (name, latency) in modes {
        Benchmark("Latency \(name): 720p30 VP8, 1 % loss, 10 ms jitter, 10 s", configuration: once) { benchmark in
            let (video, sent) = try await LatencyRun(
                codec: .vp8, latency: latency,
                impairment: NetworkImpairment(lossRate: 0.01, jitter: .milliseconds(10), seed: 5)
            ).stream(seconds: 10)
            record(benchmark, video)
            benchmark.measurement(dropped, sent.dropped)
            benchmark.measurement(highest, milliseconds(sent.highestDelay))
        }
    }
    for codec in [VideoCodec.h264, .vp8, .vp9, .av1] {
        Benchmark("Quality \(codec): 720p30, 3 Mbit/s, 5 s", configuration: once) { benchmark in
            let (video, _) = try await LatencyRun(
                codec: codec, latency: .normal, impairment: NetworkImpairment(), measuresQuality: true
            ).stream(seconds: 5)
            record(benchmark, video)
        }
    }
}

private func milliseconds(_ duration: Duration?) -> Int {
    Int(((duration ?? .zero) / .milliseconds(1)).rounded())
}

/// One stream of the test pattern to an emulator in this process.
private struct LatencyRun {
    let codec: VideoCodec
    let latency: RemoteDisplayConfiguration.Latency
    let impairment: NetworkImpairment
    var measuresQuality = false

    /// Streams `seconds` of 720p30; what the emulator measured of the video,
    /// and the frames the sender dropped and the highest target delay it sent.
    func stream(seconds: Double) async throws -> (StreamReport, (dropped: Int, highestDelay: Duration)) {
        let signal = try TestSignal(width: 1_280, height: 720, frameRate: 30, start: .now)
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .chromecastWithGoogleTV),
            logger: CastLogger(filter: CastLogFilter(minimumLevel: .none)))
        var streaming = emulator.streaming
        streaming.impairment = self.impairment
        streaming.videoCodecs = [self.codec]
        // The pictures compared with what was drawn in the quality runs alone: the comparison takes
        // this process's CPU, which a receiver of its own would not.
        if self.measuresQuality {
            streaming.videoReference = { signal.luma(at: $0) }
        } else {
            // Latency: frames reassembled in order, not decoded — a receiver's decoder is its own
            // chip, not this machine's two cores, which the sender needs (the delay keeps 30 ms for it).
            streaming.decodes = false
        }
        emulator.streaming = streaming
        try await emulator.start()
        do {
            var configuration = RemoteDisplayConfiguration(
                resolutions: [.hd720], maximumFrameRate: 30, maximumVideoBitrate: 3_000_000,
                videoCodecs: [self.codec], audio: nil)
            configuration.setLatency(self.latency)
            let connection = try await MirroringConnection(port: emulator.port, configuration: configuration)
            var highestDelay = connection.session.targetDelay
            try await signal.stream(seconds: seconds, to: connection.session) { _ in
                highestDelay = max(highestDelay, connection.session.targetDelay)
            }
            // The last frames' playout, acknowledgements and reports.
            try await Task.sleep(for: .seconds(1))
            let report = emulator.streamingReport?.video
            let dropped = connection.session.currentStatistics.video?.framesDropped ?? 0
            await connection.close()
            await emulator.stop()
            guard let report, report.framesDecoded > 0 else {
                throw BenchmarkSupportError(description: "the emulator decoded no \(self.codec) frame")
            }
            return (report, (dropped, highestDelay))
        } catch {
            await emulator.stop()
            throw error
        }
    }
}
