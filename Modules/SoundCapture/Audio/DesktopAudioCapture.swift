import CPulse
public import CastStreaming
import Foundation
import NIOConcurrencyHelpers

/// Records the desktop's sound — by default the default sink's monitor,
/// what every application plays — through libpulse, and feeds it to a
/// `RemoteDisplaySession` on the session's clock.
///
/// Works with PulseAudio and with PipeWire's pulse server. Sound is read
/// as 48 kHz stereo float in chunks of ``DesktopAudioConfiguration/chunkDuration``;
/// each chunk is stamped with the host time its first sample was captured
/// (when the read returned, less the chunk's length: a monitor hands sound
/// over as its sink plays it or just before), the clock `ScreenCapture`
/// stamps pictures with, so sound and pictures play in sync.
public final class DesktopAudioCapture: Sendable {
    /// The rate sound is recorded at: the session's, so nothing is resampled.
    static let sampleRate = 48_000
    static let channelCount = 2

    /// Where the sound comes from.
    public let configuration: DesktopAudioConfiguration
    private let stream: NIOLockedValueBox<(any SoundRecording)?>
    /// Ends a read that waits, when stopped.
    private let interruption: @Sendable () -> Void
    private let control = NIOLockedValueBox(
        (stopping: false, statistics: DesktopAudioStatistics(), gain: Float(1)))
    private let completion = CaptureCompletion()
    /// The sessions the recording feeds.
    private let targets = NIOLockedValueBox([RemoteDisplaySession]())
    private let chunkFrames: Int

    /// Connects to the sound server and opens the recording stream.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/audioUnavailable`` when no
    ///   server answers, the source does not exist, or the application asked
    ///   for plays nothing now;
    ///   ``CaptureError/Code-swift.struct/invalidConfiguration`` for a chunk out of range.
    public convenience init(configuration: DesktopAudioConfiguration = DesktopAudioConfiguration()) throws(CaptureError)
    {
        let chunkBytes = try configuration.chunkFrames() * Self.channelCount * MemoryLayout<Float>.size
        let recording: any SoundRecording =
            if let application = configuration.application {
                try ApplicationRecording(server: configuration.server, application: application, chunkBytes: chunkBytes)
            } else {
                try RecordStream(
                    server: configuration.server, device: configuration.device ?? "@DEFAULT_MONITOR@",
                    chunkBytes: chunkBytes)
            }
        try self.init(configuration: configuration, recording: recording)
    }

    /// Feeds what `recording` delivers, in chunks of the configuration's
    /// length; the configuration's server and device are not used.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/invalidConfiguration`` for a chunk out of range.
    package init(configuration: DesktopAudioConfiguration, recording: any SoundRecording) throws(CaptureError) {
        self.chunkFrames = try configuration.chunkFrames()
        self.configuration = configuration
        self.stream = NIOLockedValueBox(recording)
        self.interruption = { recording.interrupt() }
    }

    /// A linear gain applied to the sound as it is recorded; 1 (the
    /// default) leaves it as the server delivers it, 0 silences it.
    /// Changeable while recording, from the next chunk.
    ///
    /// A sink's monitor delivers the sound after the sink's volume (both
    /// PulseAudio and PipeWire's pulse server do): to send what apps play
    /// whatever the sink's volume, set the inverse of the sink's linear
    /// volume (`pa_sw_volume_to_linear`).
    public var gain: Float {
        get { self.control.withLockedValue { $0.gain } }
        set { self.control.withLockedValue { $0.gain = max(0, newValue.isFinite ? newValue : 0) } }
    }

    /// What the capture recorded so far.
    public var statistics: DesktopAudioStatistics { self.control.withLockedValue { $0.statistics } }

    /// Starts recording into `session` on a thread of its own, until
    /// ``stop()``, the session ends, or the server goes away.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/invalidConfiguration`` when
    ///   already started or when the session has no audio stream.
    public func start(streamingTo session: RemoteDisplaySession) throws(CaptureError) {
        try self.start(streamingTo: [session])
    }

    /// Starts recording into every one of `sessions` on a thread of its own:
    /// each chunk is queued to each session with the same capture time, so
    /// receivers given the same target delay play it at the same moment
    /// (several speakers as one). A session that ends, or refuses the sound,
    /// is left out and the others go on; recording ends at ``stop()``, when
    /// every session has gone, or when the server goes away.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/invalidConfiguration`` when
    ///   already started, when `sessions` is empty, or when one has no audio stream.
    public func start(streamingTo sessions: [RemoteDisplaySession]) throws(CaptureError) {
        guard !sessions.isEmpty else { throw CaptureError(.invalidConfiguration, "no session to send the sound to") }
        guard sessions.allSatisfy({ $0.audioQueue != nil }) else {
            throw CaptureError(.invalidConfiguration, "the session sends no audio")
        }
        guard
            let stream = self.stream.withLockedValue({ stream in
                defer { stream = nil }
                return stream
            })
        else {
            throw CaptureError(.invalidConfiguration, "this capture was already started")
        }
        self.targets.withLockedValue { $0 = sessions }
        Thread.start(named: "cast.audio-in") { [self] in
            self.completion.finish(self.run(stream))
        }
    }

    /// Adds `session` to those a running capture feeds, from the next chunk on.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/invalidConfiguration`` when
    ///   the session has no audio stream or the capture has ended.
    public func add(_ session: RemoteDisplaySession) throws(CaptureError) {
        guard session.audioQueue != nil else { throw CaptureError(.invalidConfiguration, "the session sends no audio") }
        guard !self.hasEnded else { throw CaptureError(.invalidConfiguration, "this capture has ended") }
        self.targets.withLockedValue { targets in
            if !targets.contains(where: { $0 === session }) { targets.append(session) }
        }
    }

    /// Stops feeding `session`; the others go on.
    public func remove(_ session: RemoteDisplaySession) {
        self.targets.withLockedValue { $0.removeAll { $0 === session } }
    }

    /// Stops recording at once: nothing more is queued, and ``finished()``
    /// returns. The thread ends after the chunk it is reading, which a
    /// server that stopped delivering sound could hold up; nothing waits for it.
    public func stop() {
        self.control.withLockedValue { $0.stopping = true }
        self.completion.finish(nil)
        self.interruption()
    }

    /// Whether recording ended (stopped, the session ended, or the server went away).
    public var hasEnded: Bool { self.completion.hasEnded }

    /// Waits until recording ends: `nil` when stopped or the session ended, the error otherwise.
    public func finished() async -> CaptureError? {
        await self.completion.wait()
    }

    private func run(_ stream: any SoundRecording) -> CaptureError? {
        // Each session's input, made on this thread when the session joins.
        var feeds: [ObjectIdentifier: SessionFeed] = [:]
        var samples = [Float](repeating: 0, count: self.chunkFrames * Self.channelCount)
        var lastRefusal: (any Error)?
        while !self.control.withLockedValue({ $0.stopping }) {
            let read = Self.readChunk(from: stream, into: &samples)
            let (stopping, gain) = self.control.withLockedValue { ($0.stopping, $0.gain) }
            if stopping { return nil }
            let pts: HostTime
            switch read {
            case .success(let time): pts = time
            case .failure(let failure): return failure
            }
            let latency = stream.latency
            if gain != 1 {
                for index in samples.indices { samples[index] *= gain }
            }
            self.updateFeeds(&feeds, lastRefusal: &lastRefusal)
            guard !feeds.isEmpty else {
                guard let lastRefusal else { return nil }
                return CaptureError(.captureFailed, "the session refused the sound", cause: lastRefusal)
            }
            self.enqueue(samples, pts: pts, into: &feeds, lastRefusal: &lastRefusal)
            self.control.withLockedValue {
                $0.statistics.framesCaptured += self.chunkFrames
                $0.statistics.recordingLatency = latency
            }
        }
        return nil
    }

    /// Reads the next chunk from `stream` into `samples`: its capture time,
    /// or the error that ended the recording.
    private static func readChunk(
        from stream: any SoundRecording, into samples: inout [Float]
    ) -> Result<HostTime, CaptureError> {
        samples.withUnsafeMutableBytes { bytes -> Result<HostTime, CaptureError> in
            do throws(CaptureError) {
                return .success(try stream.read(into: bytes))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Brings `feeds` in line with the targets: sessions that ended or were removed
    /// are dropped and new ones get an input; one that refuses is removed, its error kept in `lastRefusal`.
    private func updateFeeds(_ feeds: inout [ObjectIdentifier: SessionFeed], lastRefusal: inout (any Error)?) {
        // Sessions that ended, or were removed, are left out; new ones get an input.
        let sessions = self.targets.withLockedValue { targets in
            targets.removeAll { if case .ended = $0.state { true } else { false } }
            return targets
        }
        // Rebuilt only when the sessions changed: nothing is allocated per chunk otherwise.
        if sessions.count != feeds.count || sessions.contains(where: { feeds[ObjectIdentifier($0)] == nil }) {
            let current = Set(sessions.map(ObjectIdentifier.init))
            feeds = feeds.filter { current.contains($0.key) }
        }
        for session in sessions where feeds[ObjectIdentifier(session)] == nil {
            do {
                feeds[ObjectIdentifier(session)] = SessionFeed(
                    session: session,
                    input: try session.makeAudioInput(
                        sourceSampleRate: Self.sampleRate, sourceChannelCount: Self.channelCount))
            } catch {
                lastRefusal = error
                self.remove(session)
            }
        }
    }

    /// Queues `samples`, captured at `pts`, to every feed; a feed that refuses
    /// them is dropped and its session removed, its error kept in `lastRefusal`.
    private func enqueue(
        _ samples: [Float], pts: HostTime, into feeds: inout [ObjectIdentifier: SessionFeed],
        lastRefusal: inout (any Error)?
    ) {
        for (id, feed) in feeds {
            do {
                _ = try feed.input.enqueue(interleaved: samples, pts: pts)
                feed.session.audioWasQueued()
            } catch {
                // Refused (it ended meanwhile): the others go on.
                lastRefusal = error
                feeds[id] = nil
                self.remove(feed.session)
            }
        }
    }
}

/// One session the recording feeds and its input (which cannot be copied,
/// so it lives in a box the recording thread alone touches).
private final class SessionFeed {
    let session: RemoteDisplaySession
    var input: AudioInput

    init(session: RemoteDisplaySession, input: consuming AudioInput) {
        self.session = session
        self.input = input
    }
}

/// A libpulse recording stream: 48 kHz stereo float, in small fragments.
//
// @unchecked Sendable: made on the app's thread, then used only by the
// recording thread (handed over through `Thread`'s start, which orders the
// two): `read` and `latency` are called there alone. `interrupt()`, the one
// call from another thread, touches nothing. `handle` never changes.
private final class RecordStream: SoundRecording, @unchecked Sendable {
    private let handle: OpaquePointer

    init(server: String?, device: String, chunkBytes: Int) throws(CaptureError) {
        var spec = pa_sample_spec(
            format: PA_SAMPLE_FLOAT32LE, rate: UInt32(DesktopAudioCapture.sampleRate),
            channels: UInt8(DesktopAudioCapture.channelCount))
        // fragsize asks the server to hand over sound every chunk, not
        // every couple of seconds (its default for recording).
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,
            fragsize: UInt32(chunkBytes))
        var error: Int32 = 0
        guard
            let handle = pa_simple_new(
                server, "cast", PA_STREAM_RECORD, device, "Cast mirroring", &spec, nil, &attributes, &error)
        else {
            throw CaptureError(
                .audioUnavailable,
                "cannot record \(device) from the sound server \(server ?? "(default)"): \(Self.describe(error))")
        }
        self.handle = handle
    }

    deinit {
        pa_simple_free(self.handle)
    }

    /// Fills `bytes` with the next sound, blocking until it is there; its
    /// capture time is now, less its length.
    ///
    /// Not less the stream's latency: a monitor hands over sound before its
    /// sink plays it, a latency `pa_simple_get_latency` cannot report (it
    /// reports 0 for a negative one; pacat shows −9 ms on a null sink's
    /// monitor), and at a stream's start it reported up to 0.3–0.7 s for the
    /// first half second on PulseAudio 16 while the reads came every 10 ms,
    /// nothing held back: sound stamped that much too early played early or
    /// late at the device. Measured with a libpulse player's own reckoning
    /// (`onPulseAudioTheStreamsFirstSoundPlaysTheDelayAfterThePlayerReckons`):
    /// 696 ms off with the latency subtracted, 9 ms without.
    func read(into bytes: UnsafeMutableRawBufferPointer) throws(CaptureError) -> HostTime {
        var error: Int32 = 0
        guard pa_simple_read(self.handle, bytes.baseAddress, bytes.count, &error) == 0 else {
            throw CaptureError(.sourceVanished, "recording stopped: \(Self.describe(error))")
        }
        let frames = bytes.count / (DesktopAudioCapture.channelCount * MemoryLayout<Float>.size)
        return HostTime.now.advanced(by: .zero - .seconds(1) * frames / DesktopAudioCapture.sampleRate)
    }

    /// A libpulse recording delivers a chunk every few milliseconds, monitors
    /// silence too: a read ends soon by itself.
    func interrupt() {}

    /// How long ago the sound just read was captured, beyond its own length.
    var latency: Duration {
        var error: Int32 = 0
        let microseconds = pa_simple_get_latency(self.handle, &error)
        return error == 0 ? .microseconds(Int64(microseconds)) : .zero
    }

    private static func describe(_ error: Int32) -> String {
        pa_strerror(error).map { String(cString: $0) } ?? "error \(error)"
    }
}
