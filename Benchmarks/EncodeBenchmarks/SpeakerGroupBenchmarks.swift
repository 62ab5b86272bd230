// Sound to a speaker group (issue 35): `cast speakers` plays a group's sink
// to each member over its own audio-only session, every session fed the
// same captured chunks (DesktopAudioCapture.start(streamingTo:)). Does
// sending to three devices cost three times one device, or more (contention
// between the sessions, a shared path that grows with them)?
//
// Four sessions, each to a `cast-receiver --profile nest-speaker` of its
// own in another process: one alone and three as a group. Each 10 ms tick
// (paced in real time) enqueues the same chunk into the one, then into the
// three, in an order that turns each tick, each timed on this thread's
// clock: audio alone, a session encodes and sends on the app's thread
// (the network thread sleeps while it sends). Over 5 s after a warm-up
// second: the three's CPU ÷ three times the one's (×1000); target ≤ 1100.
// The recording of the sink's monitor is one for the group and is not
// part of either side.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay

func speakerGroupBenchmarks() {
    let ratio = BenchmarkMetric.custom(
        "three sessions' CPU ÷ 3 × one session's (×1000)", polarity: .prefersSmaller, useScalingFactor: false)
    let one = BenchmarkMetric.custom("one session's CPU (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let three = BenchmarkMetric.custom("three sessions' CPU (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Speaker group of 3 ÷ 3 × one speaker, 44.1 kHz stereo → Opus ×\(streamedAudioFrames) 10 ms",
        configuration: .init(
            metrics: [ratio, one, three], warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 3)
    ) { benchmark in
        var receivers: [ExternalReceiver] = []
        var senders: [MirroringConnection] = []
        for _ in 0..<4 {
            let receiver = try ExternalReceiver(profile: "nest-speaker")
            receivers.append(receiver)
            senders.append(
                try await MirroringConnection(
                    audioOnlyPort: receiver.port, audio: RemoteDisplayConfiguration.Audio(bitrate: 128_000),
                    targetDelay: .milliseconds(400)))
        }
        // AudioInput is not copyable: four of them, not an array.
        var alone = try senders[0].session.makeAudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2)
        var first = try senders[1].session.makeAudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2)
        var second = try senders[2].session.makeAudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2)
        var third = try senders[3].session.makeAudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2)
        let start = HostTime.now
        let pace = RealTimePace(framesPerSecond: 100)
        let warmUp = 100
        // [the one alone, the group of three]
        var parts: [Duration] = [.zero, .zero]
        for index in 0..<(warmUp + streamedAudioFrames) {
            if index == warmUp {
                parts = [.zero, .zero]
                benchmark.startMeasurement()
            }
            pace.wait(for: index)
            let chunk = audioChunks[index % audioChunks.count]
            let pts = start.advanced(byFrames: 441 * index, sampleRate: 44_100)
            for turn in 0..<2 {
                let part = (index + turn) % 2
                let before = CPUClock.thread()
                if part == 0 {
                    _ = try alone.enqueue(interleaved: chunk, pts: pts)
                    senders[0].session.audioWasQueued()
                } else {
                    _ = try first.enqueue(interleaved: chunk, pts: pts)
                    senders[1].session.audioWasQueued()
                    _ = try second.enqueue(interleaved: chunk, pts: pts)
                    senders[2].session.audioWasQueued()
                    _ = try third.enqueue(interleaved: chunk, pts: pts)
                    senders[3].session.audioWasQueued()
                }
                parts[part] += CPUClock.thread() - before
            }
        }
        benchmark.stopMeasurement()
        for sender in senders { await sender.close() }
        guard parts[0] > .zero else {
            throw BenchmarkSupportError(description: "the one session took no CPU time")
        }
        benchmark.measurement(ratio, Int((parts[1] / (parts[0] * 3) * 1_000).rounded()))
        benchmark.measurement(one, Int(parts[0] / .microseconds(1)))
        benchmark.measurement(three, Int(parts[1] / .microseconds(1)))
        withExtendedLifetime(receivers) {}
    }
}
