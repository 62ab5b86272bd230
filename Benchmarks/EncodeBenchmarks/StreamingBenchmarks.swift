// The Remote Display send path measured alone (issue 21): every benchmark
// here streams to `cast-receiver` running in a process of its own
// (ExternalReceiver), so the receiver's reassembly, decoding and PSNR cost
// nothing in this process's CPU clocks and allocation counts. The app side
// paces frames in real time at 30 fps and waits by blocking in
// clock_nanosleep, which allocates nothing.
//
// Sender alone: 5 s of 720p or 1080p at 30 fps, VP8 at a fixed 4 Mbit/s, to
// a cast-receiver that only reassembles and acknowledges (--no-decode), so
// both cores are as quiet as for the baseline. Measured over those 150
// frames: the process's user and system CPU and its allocations
// (package-benchmark's metrics), the encoder and network threads' CPU per
// frame (their schedstat clocks), and the process's CPU ÷ raw libvpx
// encoding the same 150 frames with the same settings at the same 30 fps pace
// in the same process right after (×1000). Targets: ratio ≤ 1.05, no allocation per
// frame, system CPU ≤ 0.3 s per 10 s at 720p30 (Open Screen's sender on
// the same clip).
//
// End-to-end latency: 720p30 for 3 s; cast-receiver reports capture →
// decoded p50 and p99 when the sender leaves.
//
// Resends and frames on time: 720p30 for 5 s with the default 400 ms target
// delay, on a clean loopback, with cast-receiver dropping 5 % of datagrams,
// with it adding up to 20 ms of jitter, and with both; resent ÷ sent packets
// (the sender's counters) and frames decoded before their playout time ÷
// frames enqueued (the receiver's), both in ‰. Loss and jitter apart show
// what each costs: jitter reorders a frame's packets, the receiver NACKs
// the ones overtaken, and those delayed by more than a round trip are
// resent (the sender's guard is Open Screen's, sender_impl.cc:570-612);
// with loss, about a third of the resends are kickstarts
// (StreamSender.kickstartIfStalled says why).
//
// AES-128-CTR throughput: the frame cipher's OpenSSL EVP calls, per MiB.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay
import Foundation
import RawCodecs

/// A mirroring session with cast-receiver in another process, fed pre-rendered frames.
final class ExternalStreaming: @unchecked Sendable {
    // @unchecked Sendable: `sent` is its only mutable state, changed and read
    // only by the benchmark closure that owns this value, one call at a time;
    // the other properties are `let`s of Sendable types.
    let receiver: ExternalReceiver
    let mirroring: MirroringConnection
    let source: SourceFrames
    var sent = 0

    var session: RemoteDisplaySession { self.mirroring.session }

    /// VP8 at a fixed bitrate (the encode benchmarks' and the raw path's), no
    /// congestion adaptation: the sender encodes exactly what raw libvpx does.
    init(source: SourceFrames, loss: Double = 0, jitterMilliseconds: Int = 0, decodes: Bool = true) async throws {
        let receiver = try ExternalReceiver(loss: loss, jitterMilliseconds: jitterMilliseconds, decodes: decodes)
        let bitrate = VideoEncoderConfiguration(width: source.width, height: source.height).bitrate
        self.mirroring = try await MirroringConnection(
            port: receiver.port,
            configuration: RemoteDisplayConfiguration(
                resolutions: [RemoteDisplayConfiguration.Resolution(width: source.width, height: source.height)],
                minimumVideoBitrate: bitrate, maximumVideoBitrate: bitrate, videoCodecs: [.vp8], audio: nil,
                adaptsToCongestion: false))
        self.receiver = receiver
        self.source = source
    }

    /// Streams `frames` frames at 30 fps in real time, each enqueued at its
    /// capture time. A frame finding every pooled buffer busy is skipped, as
    /// a live source would skip it.
    func streamInRealTime(frames: Int) throws {
        let pace = RealTimePace()
        for index in 0..<frames {
            pace.wait(for: index)
            try self.enqueue(pts: HostTime.now)
        }
    }

    /// Copies the next source frame into a session buffer and enqueues it.
    private func enqueue(pts: HostTime) throws {
        guard var buffer = self.session.createPixelBuffer() else { return }
        let frame = self.source.planes[self.sent % distinctFrames]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: frame[plane], bytesPerRow: self.source.rowBytes(plane))
        }
        try self.session.enqueueVideoFrame(buffer, pts: pts)
        self.sent += 1
    }

    /// Lets the last frames arrive, leaves, and returns the receiver's report.
    func finish() async throws -> ReceiverStreamReport {
        try await Task.sleep(for: .milliseconds(600))
        let number = self.receiver.reportCount + 1
        await self.mirroring.close()
        return try await self.receiver.report(number: number)
    }
}

let streamedFrames = 150

func streamingBenchmarks() {
    let ratio = BenchmarkMetric.custom(
        "sender CPU ÷ raw libvpx CPU (×1000)", polarity: .prefersSmaller, useScalingFactor: false)
    let encoderThread = BenchmarkMetric.custom(
        "encoder thread CPU per frame (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let networkThread = BenchmarkMetric.custom(
        "network thread CPU per frame (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    for (width, height) in [(1280, 720), (1920, 1080)] {
        Benchmark(
            "Sender alone \(width)x\(height) 30 fps ×\(streamedFrames) (cast-receiver in another process)",
            configuration: .init(
                metrics: [.cpuUser, .cpuSystem, .mallocCountTotal, ratio, encoderThread, networkThread],
                warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
        ) { benchmark in
            let streaming = try await ExternalStreaming(
                source: SourceFrames(width: width, height: height), decodes: false)
            // The first second: the key frame, the first round trips, the pools filled.
            try streaming.streamInRealTime(frames: 30)
            let before = (
                CPUClock.process(), CPUClock.threads(named: "cast.encoder"), CPUClock.threads(named: "cast.network")
            )
            benchmark.startMeasurement()
            try streaming.streamInRealTime(frames: streamedFrames)
            benchmark.stopMeasurement()
            let after = (
                CPUClock.process(), CPUClock.threads(named: "cast.encoder"), CPUClock.threads(named: "cast.network")
            )
            _ = try await streaming.finish()
            let sender = (after.0.user - before.0.user) + (after.0.system - before.0.system)

            // The limit: raw libvpx on the same frames at the same pace, session
            // gone, same process.
            let raw = try RawVideoPath(source: streaming.source)
            for _ in 0..<30 { raw.encodeNext() }
            let rawStart = CPUClock.process()
            let pace = RealTimePace()
            for index in 0..<streamedFrames {
                pace.wait(for: index)
                raw.encodeNext()
            }
            let rawEnd = CPUClock.process()
            let rawCPU = (rawEnd.user - rawStart.user) + (rawEnd.system - rawStart.system)
            guard rawCPU > .zero else { throw BenchmarkSupportError(description: "raw libvpx took no CPU time") }
            benchmark.measurement(ratio, Int((sender / rawCPU * 1_000).rounded()))
            benchmark.measurement(encoderThread, Int((after.1 - before.1) / .microseconds(1)) / streamedFrames)
            benchmark.measurement(networkThread, Int((after.2 - before.2) / .microseconds(1)) / streamedFrames)
        }
    }

    // What the benchmark harness itself allocates in the same 150 frames'
    // time with no session: the sender's allocations are the difference.
    Benchmark(
        "Harness alone ×\(streamedFrames) frame times (no session; the baseline of the sender's allocations)",
        configuration: .init(metrics: [.mallocCountTotal], warmupIterations: 0, maxIterations: 3)
    ) { benchmark in
        let pace = RealTimePace()
        benchmark.startMeasurement()
        for index in 0..<streamedFrames { pace.wait(for: index) }
        benchmark.stopMeasurement()
    }

    let latencyP50 = BenchmarkMetric.custom("latency p50 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let latencyP99 = BenchmarkMetric.custom("latency p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "End-to-end latency 1280x720 30 fps (enqueue → decoded by cast-receiver in another process)",
        configuration: .init(
            metrics: [latencyP50, latencyP99], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 5)
    ) { benchmark in
        let streaming = try await ExternalStreaming(source: SourceFrames(width: 1280, height: 720))
        try streaming.streamInRealTime(frames: 90)
        let report = try await streaming.finish()
        guard let p50 = report.latencyP50, let p99 = report.latencyP99 else {
            throw BenchmarkSupportError(description: "cast-receiver decoded no video")
        }
        benchmark.measurement(latencyP50, Int(p50 * 1_000))
        benchmark.measurement(latencyP99, Int(p99 * 1_000))
    }

    let resent = BenchmarkMetric.custom("resent ÷ sent (‰)", polarity: .prefersSmaller, useScalingFactor: false)
    let onTime = BenchmarkMetric.custom("frames on time (‰)", polarity: .prefersLarger, useScalingFactor: false)
    let links = [
        ("clean link", 0.0, 0), ("5 % loss", 0.05, 0), ("20 ms jitter", 0.0, 20),
        ("5 % loss and 20 ms jitter", 0.05, 20),
    ]
    for (label, loss, jitter) in links {
        Benchmark(
            "Resends and frames on time 1280x720 30 fps, \(label)",
            configuration: .init(
                metrics: [resent, onTime], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)
        ) { benchmark in
            let streaming = try await ExternalStreaming(
                source: SourceFrames(width: 1280, height: 720), loss: loss, jitterMilliseconds: jitter)
            try streaming.streamInRealTime(frames: 150)
            // The session publishes its statistics every 500 ms: wait for the last of them.
            try await Task.sleep(for: .milliseconds(600))
            let sent = streaming.session.currentStatistics.video
            let report = try await streaming.finish()
            guard let sent, sent.packetsSent > 0, streaming.sent > 0 else {
                throw BenchmarkSupportError(description: "nothing was sent")
            }
            benchmark.measurement(resent, sent.retransmittedPackets * 1_000 / sent.packetsSent)
            benchmark.measurement(onTime, (report.framesDecoded - report.framesLate) * 1_000 / streaming.sent)
        }
    }

    Benchmark("AES-128-CTR 1 MiB (OpenSSL EVP, as the frame cipher calls it)") { benchmark in
        let input = [UInt8](repeating: 0x5A, count: 1 << 20)
        var output = [UInt8](repeating: 0, count: 1 << 20)
        let key = [UInt8](repeating: 1, count: 16)
        let nonce = [UInt8](repeating: 2, count: 16)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(raw_aes128_ctr(key, nonce, input, &output, input.count))
        }
    }
}
