// The whole Remote Display send path against raw libvpx, in one run:
// pooled buffer → encoder thread (VP8) → AES-128-CTR → RTP packetizer →
// pacer → UDP on loopback → the emulator's receiver reassembles and
// acknowledges (decoding off, so the receiver costs little). Each sample
// sends `framesPerSample` frames and ends when the receiver has them all;
// the next frame waits while one encodes and one is on the wire, as a live
// app's would. The benchmark's own waits sleep, so the cores stay with the
// send path.
// Target: time ratio to "VP8 raw libvpx" of the same size ≤ 1.10, read
// from the paired benchmark ("Send path ÷ raw libvpx …, paired").
//
// End-to-end latency: 720p at 30 fps in real time, each frame enqueued at
// its capture time; the emulator (decoding on) measures capture → decoded.
// Each sample is a fresh session streaming 3 s; its p50 and p99 are custom
// metrics in microseconds.
//
// Resends and frames on time: 720p at 30 fps in real time for 5 s, on a
// clean loopback and with the emulator dropping 5 % of datagrams and adding
// 20 ms of jitter; resent ÷ sent packets and the share of frames decoded
// in time, both in ‰.
//
// AES-128-CTR throughput: the frame cipher's OpenSSL EVP calls, per MiB.

import Benchmark
import CastChannels
import CastEmulator
import CastLogging
import CastRemoteDisplay
import CastTransport
import RawCodecs

/// A mirroring session against an in-process emulator on loopback.
final class LoopbackStreaming: @unchecked Sendable {
    // @unchecked Sendable: `sent` is its only mutable state, changed and read
    // only by `send(_:)`, which one benchmark closure awaits at a time; the
    // other properties are `let`s of Sendable types.
    let emulator: CastEmulator
    let connection: CastConnection
    let session: RemoteDisplaySession
    let source: SourceFrames
    var sent = 0

    init(
        source: SourceFrames, decodes: Bool = false, impairment: NetworkImpairment = NetworkImpairment()
    ) async throws {
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(logger: quiet)
        emulator.streaming = StreamingReceiverConfiguration(impairment: impairment, decodes: decodes)
        try await emulator.start()
        let connection = CastConnection(host: "127.0.0.1", port: emulator.port, logger: quiet)
        try await connection.connect()
        try await connection.openVirtualConnection(to: "receiver-0")
        let receiver = ReceiverChannel()
        receiver.attach(to: connection, destinationID: "receiver-0", logger: quiet)
        let application = try await receiver.launch(appID: CastApplicationID.mirroring)
        guard let transportID = application.transportID else {
            throw BenchmarkSetupError(description: "the mirroring app has no transport")
        }
        try await connection.openVirtualConnection(to: transportID)
        let channel = RemoteDisplayChannel(logger: quiet)
        channel.attach(to: connection, destinationID: transportID, logger: quiet)
        self.session = try await channel.beginSession(
            configuration: RemoteDisplayConfiguration(
                resolutions: [RemoteDisplayConfiguration.Resolution(width: source.width, height: source.height)],
                maximumVideoBitrate: VideoEncoderConfiguration(width: source.width, height: source.height).bitrate,
                audio: nil, targetDelay: .seconds(5)))
        self.emulator = emulator
        self.connection = connection
        self.source = source
    }

    /// Sends `count` frames, keeping at most three between the app and the
    /// emulator (waiting to encode, encoding, or on the wire), so the encoder
    /// always has the next frame and the encoder backlog never overflows.
    func send(_ count: Int) async throws {
        let target = self.sent + count
        while self.sent < target {
            try await self.waitUntilReceived(self.sent - 2)
            guard try self.enqueue(pts: pts(self.sent)) else {
                try await Self.pause()
                continue
            }
        }
        try await self.waitUntilReceived(target)
    }

    /// Waits until the emulator has `count` frames, less those the session
    /// dropped (an app that hands frames faster than the encoder takes them
    /// loses the oldest waiting one); a stall fails the benchmark instead of hanging it.
    private func waitUntilReceived(_ count: Int) async throws {
        let deadline = HostTime.now.advanced(by: .seconds(2))
        while self.received < count - (self.session.currentStatistics.video?.framesDropped ?? 0) {
            guard HostTime.now < deadline else {
                throw BenchmarkSetupError(description: "the emulator stopped receiving at frame \(self.received)")
            }
            try await Self.pause()
        }
    }

    /// Streams `seconds` at 30 fps in real time, each frame enqueued at its
    /// capture time, and waits (at most 2 s) until the emulator has decoded them.
    func streamInRealTime(seconds: Int) async throws {
        let start = HostTime.now
        for index in 0..<(seconds * 30) {
            let capture = start.advanced(by: .nanoseconds(Int64(index) * 33_333_333))
            let wait = HostTime.now.duration(to: capture)
            if wait > .zero { try await Task.sleep(for: wait) }
            _ = try self.enqueue(pts: capture)
        }
        let deadline = HostTime.now.advanced(by: .seconds(2))
        while self.decoded < self.sent, HostTime.now < deadline { try await Self.pause() }
    }

    /// Copies the next source frame into a session buffer and enqueues it;
    /// `false` when the pool has no free buffer.
    private func enqueue(pts: HostTime) throws -> Bool {
        guard var buffer = self.session.createPixelBuffer() else { return false }
        let frame = self.source.planes[self.sent % distinctFrames]
        for plane in 0..<3 {
            try buffer.copyPlane(plane, from: frame[plane], bytesPerRow: self.source.rowBytes(plane))
        }
        try self.session.enqueueVideoFrame(buffer, pts: pts)
        self.sent += 1
        return true
    }

    /// Gives the cores back while waiting on the emulator (a yield loop would spin on one).
    private static func pause() async throws {
        try await Task.sleep(for: .microseconds(100))
    }

    private var received: Int { self.emulator.streamingReport?.video?.framesReceived ?? 0 }
    private var decoded: Int { self.emulator.streamingReport?.video?.framesDecoded ?? 0 }

    /// The emulator's capture → decoded latency percentiles, in microseconds.
    var latency: (p50: Int, p99: Int)? {
        guard let video = self.emulator.streamingReport?.video, let p50 = video.latencyP50,
            let p99 = video.latencyP99
        else { return nil }
        return (Int(p50 / .microseconds(1)), Int(p99 / .microseconds(1)))
    }

    func close() async {
        self.session.stop()
        await self.connection.close()
        await self.emulator.stop()
    }
}

func streamingBenchmarks() {
    for (width, height) in [(1280, 720), (1920, 1080)] {
        Benchmark("Send path \(width)x\(height) ×\(framesPerSample) (encode→encrypt→packetize→UDP)") { benchmark in
            let streaming = try await LoopbackStreaming(source: SourceFrames(width: width, height: height))
            try await streaming.send(5)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { try await streaming.send(framesPerSample) }
            benchmark.stopMeasurement()
            await streaming.close()
        }
    }

    // The target as one figure: each sample times 30 frames of raw libvpx and
    // then 30 through the send path, back to back in the same process, and
    // records their ratio (×1000). Pairing cancels most of a shared host's
    // drift, which separate benchmarks minutes apart cannot.
    let ratio = BenchmarkMetric.custom(
        "send path ÷ raw libvpx (×1000)", polarity: .prefersSmaller, useScalingFactor: false)
    for (width, height) in [(1280, 720), (1920, 1080)] {
        Benchmark(
            "Send path ÷ raw libvpx \(width)x\(height), paired",
            configuration: .init(metrics: [ratio], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 5)
        ) { benchmark in
            let source = try SourceFrames(width: width, height: height)
            let raw = try RawVideoPath(source: source)
            let streaming = try await LoopbackStreaming(source: source)
            for _ in 0..<5 { raw.encodeNext() }
            try await streaming.send(5)
            for _ in 0..<4 {
                let rawStart = ContinuousClock.now
                for _ in 0..<framesPerSample { raw.encodeNext() }
                let rawTime = ContinuousClock.now - rawStart
                let sendStart = ContinuousClock.now
                try await streaming.send(framesPerSample)
                let sendTime = ContinuousClock.now - sendStart
                benchmark.measurement(ratio, Int((sendTime / rawTime * 1_000).rounded()))
            }
            await streaming.close()
        }
    }

    let latencyP50 = BenchmarkMetric.custom("latency p50 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let latencyP99 = BenchmarkMetric.custom("latency p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "End-to-end latency 1280x720 30 fps (enqueue → decoded at the emulator)",
        configuration: .init(
            metrics: [latencyP50, latencyP99], warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 5)
    ) { benchmark in
        let streaming = try await LoopbackStreaming(source: SourceFrames(width: 1280, height: 720), decodes: true)
        try await streaming.streamInRealTime(seconds: 3)
        let latency = streaming.latency
        await streaming.close()
        guard let latency else { throw BenchmarkSetupError(description: "the emulator decoded no video") }
        benchmark.measurement(latencyP50, latency.p50)
        benchmark.measurement(latencyP99, latency.p99)
    }

    let resent = BenchmarkMetric.custom("resent ÷ sent (‰)", polarity: .prefersSmaller, useScalingFactor: false)
    let onTime = BenchmarkMetric.custom("frames on time (‰)", polarity: .prefersLarger, useScalingFactor: false)
    for (label, impairment) in [
        ("clean link", NetworkImpairment()),
        ("5 % loss, 20 ms jitter", NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(20), seed: 7)),
    ] {
        Benchmark(
            "Resends and frames on time 1280x720 30 fps, \(label)",
            configuration: .init(
                metrics: [resent, onTime], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 3)
        ) { benchmark in
            let streaming = try await LoopbackStreaming(
                source: SourceFrames(width: 1280, height: 720), decodes: true, impairment: impairment)
            try await streaming.streamInRealTime(seconds: 5)
            // The session publishes its statistics once a second: wait for the last of them.
            try await Task.sleep(for: .milliseconds(1_100))
            let sent = streaming.session.currentStatistics.video
            let report = streaming.emulator.streamingReport?.video
            let enqueued = streaming.sent
            await streaming.close()
            guard let sent, let report, sent.packetsSent > 0, enqueued > 0 else {
                throw BenchmarkSetupError(description: "nothing was sent or received")
            }
            benchmark.measurement(resent, sent.retransmittedPackets * 1_000 / sent.packetsSent)
            benchmark.measurement(onTime, (report.framesDecoded - report.framesLate) * 1_000 / enqueued)
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
