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
// - the process's CPU (CLOCK_PROCESS_CPUTIME_ID) ÷ libsamplerate + libopus
//   called directly on the same chunks at the same pace in the same process
//   right after (×1000), and ÷ the least Cast Streaming sender, in C:
//   the same libraries, then each Opus packet under AES-128-CTR behind its
//   RTP and Cast header as one datagram to a process (DatagramSink) that
//   answers each with a datagram the size of a receiver's feedback, read
//   back after each chunk. That is what any sender pays, the system calls
//   and the loopback delivery that wakes a receiver included; its ratio to
//   the bare libraries is reported too, as the floor of the first ratio;
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
    let latencyP50 = BenchmarkMetric.custom(
        "capture → decoded p50 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let latencyP99 = BenchmarkMetric.custom(
        "capture → decoded p99 (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Audio sender alone 44.1 kHz stereo → Opus ×\(streamedAudioFrames) 10 ms (cast-receiver nest-speaker in another process)",
        configuration: .init(
            metrics: [
                .cpuUser, .cpuSystem, .mallocCountTotal, ratio, leastSenderRatio, floor, appThreadAllocations,
                networkThread,
                latencyP50, latencyP99,
            ],
            warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
    ) { benchmark in
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
        var before = CPUClock.processTotal()
        var networkBefore = Duration.zero
        for index in 0..<(warmUp + streamedAudioFrames) {
            if index == warmUp {
                networkBefore = CPUClock.threads(named: "cast.network")
                before = CPUClock.processTotal()
                benchmark.startMeasurement()
                ThreadAllocations.begin()
            }
            pace.wait(for: index)
            // By sample count, as a capture stamps: `Duration * Int` is generic
            // and slow, and the raw loop it is compared with pays nothing like it.
            _ = try input.enqueue(
                interleaved: audioChunks[index % audioChunks.count],
                pts: start.advanced(byFrames: 441 * index, sampleRate: 44_100))
            session.audioWasQueued()
        }
        let allocations = ThreadAllocations.end()
        benchmark.stopMeasurement()
        let sent = CPUClock.processTotal() - before
        // Asleep while the app sends (MediaPipeline, audio alone).
        let network = CPUClock.threads(named: "cast.network") - networkBefore
        try await Task.sleep(for: .milliseconds(600))
        let number = receiver.reportCount + 1
        await sender.close()
        let report = try await receiver.report(of: .audio, number: number)

        // The limit: libsamplerate + libopus on the same chunks at the same
        // pace, session gone, same process; with `sink`, each Opus packet
        // also sent as the least Cast Streaming sender sends it, and the
        // sink's answers read (raw_audio_send_as_cast).
        func rawCPU(castingTo sink: DatagramSink?) throws -> Duration {
            guard let raw = raw_audio_create(44_100, 2, 128_000) else {
                throw BenchmarkSupportError(description: "raw_audio_create failed")
            }
            defer { raw_audio_destroy(raw) }
            if let sink {
                let key = [UInt8](repeating: 0x4B, count: 16)
                let mask = [UInt8](repeating: 0x1F, count: 16)
                guard raw_audio_send_as_cast(raw, sink.socketDescriptor, key, mask) == 0 else {
                    throw BenchmarkSupportError(description: "raw_audio_send_as_cast failed")
                }
            }
            var bytes = 0
            let rawPace = RealTimePace(framesPerSecond: 100)
            var rawStart = CPUClock.processTotal()
            for index in 0..<(warmUp + streamedAudioFrames) {
                if index == warmUp { rawStart = CPUClock.processTotal() }
                rawPace.wait(for: index)
                guard raw_audio_process(raw, audioChunks[index % audioChunks.count], 441, &bytes) >= 0 else {
                    throw BenchmarkSupportError(description: "raw_audio_process failed")
                }
            }
            let time = CPUClock.processTotal() - rawStart
            guard time > .zero else {
                throw BenchmarkSupportError(description: "raw libsamplerate+libopus took no CPU time")
            }
            return time
        }
        let libraries = try rawCPU(castingTo: nil)
        // The receiver's compound RTCP a frame (RR, XR reference time, Cast
        // feedback) is some 70 bytes.
        let leastSender = try rawCPU(castingTo: try DatagramSink(replyBytes: 72))
        guard let p50 = report.latencyP50, let p99 = report.latencyP99 else {
            throw BenchmarkSupportError(description: "cast-receiver decoded no sound")
        }
        benchmark.measurement(ratio, Int((sent / libraries * 1_000).rounded()))
        benchmark.measurement(leastSenderRatio, Int((sent / leastSender * 1_000).rounded()))
        benchmark.measurement(floor, Int((leastSender / libraries * 1_000).rounded()))
        benchmark.measurement(appThreadAllocations, allocations)
        benchmark.measurement(networkThread, Int(network / .microseconds(1)))
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
