// Sound to a speaker measured at the sender alone (issue 18): an
// AudioCastSession streams 44.1 kHz stereo int16 (resampled to 48 kHz, Opus
// at 128 kbit/s in 10 ms frames) to `cast-receiver --profile nest-speaker`
// in a process of its own, which decodes it, so its Opus decoding costs
// nothing in this process's clocks and allocation counts. The app side
// enqueues 10 ms at a time, paced in real time by clock_nanosleep, with
// each chunk's capture time.
//
// Measured over 5 s (500 frames of 10 ms) after a warm-up second:
// - the process's user and system CPU and its allocations
//   (package-benchmark's metrics; the "Harness alone" benchmark at 100 per
//   second is what the pacing itself allocates);
// - the allocations on the app's thread, where an audio-only session does
//   all of its per-frame work (ThreadAllocations), and the network
//   thread's CPU, asleep while the app sends;
// - the sender's CPU ÷ libsamplerate + libopus called directly on the same
//   chunks (×1000), and ÷ the least Cast Streaming sender, in C: the same
//   libraries, then each Opus packet under AES-128-CTR behind its RTP and
//   Cast header as one datagram to a process (DatagramSink) that answers
//   each with a datagram the size of a receiver's feedback, read back after
//   each chunk. That is what any sender pays, the system calls and the
//   loopback delivery that wakes a receiver included; its ratio to the bare
//   libraries is reported too, as the floor of the first ratio.
//   The three run in the same 10 ms ticks, one after another in an order
//   that turns each tick, each timed on this thread's clock
//   (CLOCK_THREAD_CPUTIME_ID): measured one after another in runs of their
//   own, single 2 s windows of the same work varied by up to half, so the
//   ratios of separate runs mostly measured the machine. The sender's CPU
//   is its part on this thread plus all the process's CPU off this thread
//   (its timers, the benchmark harness's threads if any), reported apart;
// - capture → decoded latency p50 and p99 from the receiver's report, at
//   the default 400 ms target delay (the speaker plays each frame at its
//   capture time + the target delay; the latency is how long before that
//   it was ready to play).
// Targets: CPU ratio ≤ 1.05, no allocation per 10 ms frame.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay
import RawCodecs

let streamedAudioFrames = 500

func audioStreamingBenchmarks() {
    let ratio = BenchmarkMetric.custom(
        "sender CPU ÷ raw libsamplerate+libopus CPU (×1000)", polarity: .prefersSmaller, useScalingFactor: false)
    let leastSenderRatio = BenchmarkMetric.custom(
        "sender CPU ÷ least Cast sender in C: libraries + AES-CTR + header + datagram out and in (×1000)",
        polarity: .prefersSmaller, useScalingFactor: false)
    let floor = BenchmarkMetric.custom(
        "least Cast sender in C ÷ raw libsamplerate+libopus CPU (×1000)", polarity: .prefersSmaller,
        useScalingFactor: false)
    let appThreadAllocations = BenchmarkMetric.custom(
        "allocations on the app's thread (encode, send, feedback, statistics)", polarity: .prefersSmaller,
        useScalingFactor: false)
    let networkThread = BenchmarkMetric.custom(
        "cast.network thread CPU (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let otherThreadsMetric = BenchmarkMetric.custom(
        "CPU off the app's thread, all the sender's (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let latencyP50 = BenchmarkMetric.custom(
        "capture → decoded p50 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let latencyP99 = BenchmarkMetric.custom(
        "capture → decoded p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Audio sender alone 44.1 kHz stereo → Opus ×\(streamedAudioFrames) 10 ms (cast-receiver nest-speaker in another process)",
        configuration: .init(
            metrics: [
                .cpuUser, .cpuSystem, .mallocCountTotal, ratio, leastSenderRatio, floor, appThreadAllocations,
                networkThread, otherThreadsMetric,
                latencyP50, latencyP99,
            ],
            warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
    ) { benchmark in
        // The two baselines, fed the same chunks in the same ticks; made
        // first, so that a failure leaves no session to close.
        let libraries = try RawAudioEncoder(castingTo: nil)
        // The receiver's compound RTCP a frame (RR, XR reference time, Cast
        // feedback) is some 70 bytes.
        let leastSender = try RawAudioEncoder(castingTo: try DatagramSink(replyBytes: 72))
        let receiver = try ExternalReceiver(profile: "nest-speaker")
        let sender = try await MirroringConnection(
            audioOnlyPort: receiver.port, audio: RemoteDisplayConfiguration.Audio(bitrate: 128_000),
            targetDelay: .milliseconds(400))
        let session = sender.session
        var input = try session.makeAudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2)
        let start = HostTime.now
        let pace = RealTimePace(framesPerSecond: 100)
        // The first second: the first round trips, the pools filled.
        let warmUp = 100
        // CPU of the sender's part, the libraries' and the least sender's,
        // each on this thread; the sender's other threads are added after.
        var parts: [Duration] = [.zero, .zero, .zero]
        var processBefore = Duration.zero
        var threadBefore = Duration.zero
        var networkBefore = Duration.zero
        for index in 0..<(warmUp + streamedAudioFrames) {
            if index == warmUp {
                parts = [.zero, .zero, .zero]
                networkBefore = CPUClock.threads(named: "cast.network")
                processBefore = CPUClock.processTotal()
                threadBefore = CPUClock.thread()
                benchmark.startMeasurement()
                ThreadAllocations.begin()
            }
            pace.wait(for: index)
            let chunk = audioChunks[index % audioChunks.count]
            // Each tick runs the three in turn, first one, then the next:
            // whichever goes first after the sleep finds its caches cold.
            for turn in 0..<3 {
                let part = (index + turn) % 3
                let before = CPUClock.thread()
                switch part {
                case 0:
                    // By sample count, as a capture stamps: `Duration * Int`
                    // is generic and slow, and the raw loop it is compared
                    // with pays nothing like it.
                    _ = try input.enqueue(
                        interleaved: chunk, pts: start.advanced(byFrames: 441 * index, sampleRate: 44_100))
                    session.audioWasQueued()
                case 1: try libraries.process(chunk)
                default: try leastSender.process(chunk)
                }
                parts[part] += CPUClock.thread() - before
            }
        }
        let allocations = ThreadAllocations.end()
        benchmark.stopMeasurement()
        // Everything the process spent off this thread is the sender's (the
        // baselines run on this thread alone); this thread's time outside
        // the three parts is the pacing's, which each of the three needs.
        let otherThreads = (CPUClock.processTotal() - processBefore) - (CPUClock.thread() - threadBefore)
        let sent = parts[0] + otherThreads
        // Asleep while the app sends (MediaPipeline, audio alone).
        let network = CPUClock.threads(named: "cast.network") - networkBefore
        try await Task.sleep(for: .milliseconds(600))
        let number = receiver.reportCount + 1
        await sender.close()
        let report = try await receiver.report(of: .audio, number: number)
        guard parts[1] > .zero, parts[2] > .zero else {
            throw BenchmarkSupportError(description: "raw libsamplerate+libopus took no CPU time")
        }
        guard let p50 = report.latencyP50, let p99 = report.latencyP99 else {
            throw BenchmarkSupportError(description: "cast-receiver decoded no sound")
        }
        benchmark.measurement(ratio, Int((sent / parts[1] * 1_000).rounded()))
        benchmark.measurement(leastSenderRatio, Int((sent / parts[2] * 1_000).rounded()))
        benchmark.measurement(floor, Int((parts[2] / parts[1] * 1_000).rounded()))
        benchmark.measurement(appThreadAllocations, allocations)
        benchmark.measurement(networkThread, Int(network / .microseconds(1)))
        benchmark.measurement(otherThreadsMetric, Int(otherThreads / .microseconds(1)))
        benchmark.measurement(latencyP50, Int(p50 * 1_000))
        benchmark.measurement(latencyP99, Int(p99 * 1_000))
    }

    // What the benchmark harness itself allocates in the same 500 frames'
    // time with no session: the sender's allocations are the difference.
    Benchmark(
        "Harness alone ×\(streamedAudioFrames) 10 ms frame times (no session; the baseline of the audio sender's allocations)",
        configuration: .init(metrics: [.mallocCountTotal], warmupIterations: 0, maxIterations: 3)
    ) { benchmark in
        let pace = RealTimePace(framesPerSecond: 100)
        benchmark.startMeasurement()
        for index in 0..<streamedAudioFrames { pace.wait(for: index) }
        benchmark.stopMeasurement()
    }
}

/// libsamplerate + libopus called directly (raw_codecs.c), and with a sink,
/// each Opus packet also sent as the least Cast Streaming sender sends it
/// and the sink's answers read (raw_audio_send_as_cast).
final class RawAudioEncoder {
    private let raw: OpaquePointer
    private var bytes = 0
    // Kept open as long as the encoder sends to it.
    private let sink: DatagramSink?

    init(castingTo sink: DatagramSink?) throws {
        guard let raw = raw_audio_create(44_100, 2, 128_000) else {
            throw BenchmarkSupportError(description: "raw_audio_create failed")
        }
        self.raw = raw
        self.sink = sink
        if let sink {
            let key = [UInt8](repeating: 0x4B, count: 16)
            let mask = [UInt8](repeating: 0x1F, count: 16)
            guard raw_audio_send_as_cast(raw, sink.socketDescriptor, key, mask) == 0 else {
                raw_audio_destroy(raw)
                throw BenchmarkSupportError(description: "raw_audio_send_as_cast failed")
            }
        }
    }

    deinit { raw_audio_destroy(self.raw) }

    /// Converts and encodes one chunk of 441 stereo frames.
    func process(_ chunk: [Int16]) throws {
        guard raw_audio_process(self.raw, chunk, 441, &self.bytes) >= 0 else {
            throw BenchmarkSupportError(description: "raw_audio_process failed")
        }
    }
}
