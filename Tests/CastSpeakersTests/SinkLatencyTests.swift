import CPulse
import CastChannels
@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CastSpeakers

extension CastSpeakersTests {
    /// On PipeWire a speaker's sink tells players its latency, and the
    /// report is true: a player of its own (libpulse, as mpv and browsers
    /// play) writes a click and reckons, from its stream's latency, when the
    /// click will be heard; the emulated speaker plays it then, within 20 ms
    /// (lip sync errors become visible at +45 ms, ITU-R BT.1359), at the
    /// default delay and at a shorter one. Without the report the player
    /// would be off by the whole delay (400 ms).
    @Test(arguments: [Duration.milliseconds(400), .milliseconds(200)])
    func onPipeWireTheSinkReportsTheLatencyTheSpeakerPlaysAt(delay: Duration) async throws {
        try await Self.withKitchen(on: .pipeWire) { kitchen, sound in
            try await Self.clickIsHeardWhenReported(kitchen, sound, delay: delay)
        }
    }

    /// On PulseAudio a null sink reports only its own latency, so a player
    /// reckons its click heard as if by a local output, and the speaker plays
    /// it the delay later — from the stream's first frames on: a click as
    /// soon as the first frame is decoded, not after a settling second. (The
    /// capture once stamped the stream's first second with the monitor's
    /// reported latency, up to 0.7 s at a stream's start though its reads came
    /// every 10 ms: the click played 696 ms early, a listener lost that second.)
    @Test func onPulseAudioTheStreamsFirstSoundPlaysTheDelayAfterThePlayerReckons() async throws {
        try await Self.withKitchen(on: .pulseAudio) { kitchen, sound in
            try await Self.clickIsHeardWhenReported(kitchen, sound, delay: .milliseconds(200), settling: false)
        }
    }

    /// Plays a click into the kitchen's sink once the stream runs (after a
    /// second of sound when `settling`) and checks it is played when the
    /// player reckoned — plus the delay where the sink cannot report it.
    private static func clickIsHeardWhenReported(
        _ kitchen: CastEmulator, _ sound: SoundServer, delay: Duration, settling: Bool = true
    ) async throws {
        let speakers = try CastSpeakers(
            configuration: CastSpeakersConfiguration(
                soundServer: sound.server, gracePeriod: .seconds(5), targetDelay: delay,
                connection: CastConnectionConfiguration(deviceAuthentication: .off)),
            logger: Self.quiet)
        let (events, found, running, added) = try await Self.run(
            speakers, finding: try Self.speaker(kitchen, id: "0123abcd-kitchen", name: "Kitchen"))
        #expect(added == ["cast.kitchen"])
        let heard = HeardClick(kitchen)
        let player = try ClickPlayer(server: sound.server, sink: "cast.kitchen")
        let started = await first(events, within: .seconds(60)) { event in
            if case .streamStarted("Kitchen", _) = event { return true }
            return false
        }
        #expect(started != nil, "no stream started when the player played into the kitchen's sink")
        // A second of sound played out first (the stream and the links' latencies settled), or one frame.
        let settled = try await waitUntil(within: .seconds(30)) { heard.frames >= (settling ? 100 : 1) }
        #expect(settled, "\(heard.frames) frames decoded")
        // A click is 10 ms of sound: under load its frame can come late or
        // be concealed, as a listener would hear it; up to three are played,
        // and the first heard is the one compared with its reckoning.
        var clicks: [(expected: HostTime, heard: HostTime)] = []
        for _ in 0..<3 where clicks.isEmpty {
            heard.reset()
            let expected = try await player.click()
            if try await waitUntil(within: .seconds(4), { heard.click != nil }), let click = heard.click {
                clicks.append((expected, click))
            }
        }
        #expect(!clicks.isEmpty, "none of three clicks was heard (\(heard.summary) in all)")
        if let (expected, click) = clicks.first {
            // PipeWire's node reports the delay, so the player's reckoning includes it.
            let played = expected.advanced(by: sound.kind == .pipeWire ? .zero : delay)
            let error = Double(played.duration(to: click) / .microseconds(1)) / 1_000
            print(
                "speakers on \(sound.kind), delay \(delay): the player reckoned the click heard at +\(player.reckonedLatency), "
                    + "the speaker played it \(error) ms from then")
            #expect(abs(error) <= 20, "the speaker played the click \(error) ms from when the player reckoned")
        }
        await player.stop()
        found.finish()
        try await running.value
    }
}

/// When an emulated speaker played the first loud sample after silence:
/// the decoded frame holding it, by capture time, and that frame's playout.
private final class HeardClick: Sendable {
    private let state = NIOLockedValueBox(
        (frames: 0, loud: [Int64: Int](), loudFrames: 0, playouts: 0, click: HostTime?.none))

    init(_ emulator: CastEmulator) {
        emulator.streaming.observer.sound = { [state] capture, samples, channels in
            guard let capture else { return }
            let first = samples.firstIndex { abs($0) > 0.25 }
            state.withLockedValue { state in
                state.frames += 1
                if let first, state.click == nil {
                    state.loud[capture.nanoseconds] = first / max(1, channels)
                    state.loudFrames += 1
                }
            }
        }
        emulator.streaming.observer.soundPlayout = { [state] capture, playout in
            state.withLockedValue { state in
                state.playouts += 1
                guard state.click == nil, let offset = state.loud[capture.nanoseconds] else { return }
                state.click = playout.advanced(byFrames: offset, sampleRate: 48_000)
            }
        }
    }

    /// Forgets the loud frames and the click heard so far.
    func reset() {
        self.state.withLockedValue {
            $0.loud = [:]
            $0.click = nil
        }
    }

    /// Frames decoded so far.
    var frames: Int { self.state.withLockedValue { $0.frames } }
    /// What was decoded and played, for a failure's message: frames, loud frames, playouts.
    var summary: String {
        self.state.withLockedValue { "\($0.frames) frames decoded, \($0.loudFrames) loud, \($0.playouts) played out" }
    }
    /// When the click was played, once it was.
    var click: HostTime? { self.state.withLockedValue { $0.click } }
}

/// A player as a desktop's players are: libpulse, 48 kHz stereo float,
/// 40 ms of buffer; it plays silence on a thread of its own until asked for
/// a click, and reckons when the click will be heard as a player keeping
/// pictures in sync does — when the write returns, the stream's latency
/// (`pa_simple_get_latency`: until the last sample written is heard) less
/// the part of the click after its start.
private final class ClickPlayer: Sendable {
    private static let chunkFrames = 480
    private let state = NIOLockedValueBox(
        (clicking: false, stopping: false, reckoned: HostTime?.none, latency: Duration.zero, failure: String?.none))
    private let finished = NIOLockedValueBox(false)

    init(server: String, sink: String) throws {
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: 48_000, channels: 2)
        let chunkBytes = UInt32(Self.chunkFrames * 2 * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: chunkBytes * 4, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max
        )
        var error: Int32 = 0
        guard
            let handle = pa_simple_new(
                server, "cast-test", PA_STREAM_PLAYBACK, sink, "click", &spec, nil, &attributes, &error)
        else {
            throw TestDaemonError.requestFailed("cannot play into \(sink): \(String(cString: pa_strerror(error)))")
        }
        let stream = PlaybackHandle(handle)
        Thread.detachNewThread { [state, finished] in
            Self.play(stream, state: state)
            finished.withLockedValue { $0 = true }
        }
    }

    /// How long after the click's write the player reckoned it heard.
    var reckonedLatency: Duration { self.state.withLockedValue { $0.latency } }

    /// Plays a click; returns when the player reckons it will be heard.
    func click() async throws -> HostTime {
        self.state.withLockedValue {
            $0.clicking = true
            $0.reckoned = nil
        }
        let reckoned = try await waitUntil(within: .seconds(10)) {
            self.state.withLockedValue { $0.reckoned != nil || $0.failure != nil }
        }
        let (time, failure) = self.state.withLockedValue { ($0.reckoned, $0.failure) }
        guard reckoned, let time else { throw TestDaemonError.requestFailed(failure ?? "the click was not played") }
        return time
    }

    /// Stops playing and waits for the thread to end.
    func stop() async {
        self.state.withLockedValue { $0.stopping = true }
        _ = try? await waitUntil(within: .seconds(10)) { self.finished.withLockedValue { $0 } }
    }

    private static func play(
        _ stream: PlaybackHandle,
        state: NIOLockedValueBox<
            (clicking: Bool, stopping: Bool, reckoned: HostTime?, latency: Duration, failure: String?)
        >
    ) {
        defer { pa_simple_free(stream.handle) }
        let silence = [Float](repeating: 0, count: Self.chunkFrames * 2)
        // 10 ms of a 1 kHz sine at 0.8, loud from its first sample.
        let click = (0..<Self.chunkFrames * 2).map { Float(0.8 * cos(2 * Double.pi * 1_000 * Double($0 / 2) / 48_000)) }
        var error: Int32 = 0
        while !state.withLockedValue({ $0.stopping }) {
            let clicking = state.withLockedValue { $0.clicking }
            let chunk = clicking ? click : silence
            let written = chunk.withUnsafeBytes { pa_simple_write(stream.handle, $0.baseAddress, $0.count, &error) }
            guard written == 0 else {
                state.withLockedValue { $0.failure = "pa_simple_write: \(String(cString: pa_strerror(error)))" }
                return
            }
            guard clicking else { continue }
            let latency = pa_simple_get_latency(stream.handle, &error)
            let untilHeard = Duration.microseconds(Int64(latency)) - .milliseconds(10)
            state.withLockedValue {
                $0.clicking = false
                $0.latency = untilHeard
                $0.reckoned = HostTime.now.advanced(by: untilHeard)
            }
        }
    }
}

/// A libpulse playback handed to the player's thread, which alone uses it.
//
// @unchecked Sendable: `handle` never changes; it is made on the test's
// thread, which hands it over through `Thread.detachNewThread` (ordering
// the two) and never touches it again; the player's thread alone writes,
// reads the latency and frees it.
private final class PlaybackHandle: @unchecked Sendable {
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
}
