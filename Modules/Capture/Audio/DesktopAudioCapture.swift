import CPulse
public import CastRemoteDisplay
import Foundation
import NIOConcurrencyHelpers

/// Records the desktop's sound — by default the default sink's monitor,
/// what every application plays — through libpulse, and feeds it to a
/// `RemoteDisplaySession` on the session's clock.
///
/// Works with PulseAudio and with PipeWire's pulse server. Sound is read
/// as 48 kHz stereo float in chunks of ``DesktopAudioConfiguration/chunkDuration``;
/// each chunk is stamped with the host time its first sample was captured
/// (now, less the server's reported recording latency and the chunk's
/// length), the clock ``ScreenCapture`` stamps pictures with, so sound and
/// pictures play in sync.
public final class DesktopAudioCapture: Sendable {
    /// The rate sound is recorded at: the session's, so nothing is resampled.
    static let sampleRate = 48_000
    static let channelCount = 2

    /// Where the sound comes from.
    public let configuration: DesktopAudioConfiguration
    private let stream: NIOLockedValueBox<RecordStream?>
    private let control = NIOLockedValueBox(
        (stopping: false, statistics: DesktopAudioStatistics(), gain: Float(1)))
    private let completion = CaptureCompletion()
    private let chunkFrames: Int

    /// Connects to the sound server and opens the recording stream.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/audioUnavailable`` when no
    ///   server answers or the source does not exist;
    ///   ``CaptureError/Code-swift.struct/invalidConfiguration`` for a chunk out of range.
    public init(configuration: DesktopAudioConfiguration = DesktopAudioConfiguration()) throws(CaptureError) {
        self.chunkFrames = try configuration.chunkFrames()
        self.configuration = configuration
        self.stream = NIOLockedValueBox(
            try RecordStream(
                server: configuration.server, device: configuration.device ?? "@DEFAULT_MONITOR@",
                chunkBytes: self.chunkFrames * Self.channelCount * MemoryLayout<Float>.size))
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
        guard session.audioQueue != nil else { throw CaptureError(.invalidConfiguration, "the session sends no audio") }
        guard
            let stream = self.stream.withLockedValue({ stream in
                defer { stream = nil }
                return stream
            })
        else {
            throw CaptureError(.invalidConfiguration, "this capture was already started")
        }
        Thread.start(named: "cast.audio-in") { [self] in
            self.completion.finish(self.run(stream, into: session))
        }
    }

    /// Stops recording at once: nothing more is queued, and ``finished()``
    /// returns. The thread ends after the chunk it is reading, which a
    /// server that stopped delivering sound could hold up; nothing waits for it.
    public func stop() {
        self.control.withLockedValue { $0.stopping = true }
        self.completion.finish(nil)
    }

    /// Whether recording ended (stopped, the session ended, or the server went away).
    public var hasEnded: Bool { self.completion.hasEnded }

    /// Waits until recording ends: `nil` when stopped or the session ended, the error otherwise.
    public func finished() async -> CaptureError? {
        await self.completion.wait()
    }

    private func run(_ stream: RecordStream, into session: RemoteDisplaySession) -> CaptureError? {
        var input: AudioInput
        do {
            input = try session.makeAudioInput(sourceSampleRate: Self.sampleRate, sourceChannelCount: Self.channelCount)
        } catch {
            return CaptureError(.invalidConfiguration, "the session sends no audio", cause: error)
        }
        var samples = [Float](repeating: 0, count: self.chunkFrames * Self.channelCount)
        let chunk = Duration.seconds(1) * self.chunkFrames / Self.sampleRate
        while !self.control.withLockedValue({ $0.stopping }) {
            let failure = samples.withUnsafeMutableBytes { bytes -> CaptureError? in
                do throws(CaptureError) {
                    try stream.read(into: bytes)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { return failure }
            let latency = stream.latency
            let pts = HostTime.now.advanced(by: .zero - latency - chunk)
            if case .ended = session.state { return nil }
            let (stopping, gain) = self.control.withLockedValue { ($0.stopping, $0.gain) }
            if stopping { return nil }
            if gain != 1 {
                for index in samples.indices { samples[index] *= gain }
            }
            do {
                _ = try input.enqueue(interleaved: samples, pts: pts)
            } catch {
                return CaptureError(.captureFailed, "the session refused the sound", cause: error)
            }
            session.audioWasQueued()
            self.control.withLockedValue {
                $0.statistics.framesCaptured += self.chunkFrames
                $0.statistics.recordingLatency = latency
            }
        }
        return nil
    }
}

/// A libpulse recording stream: 48 kHz stereo float, in small fragments.
//
// @unchecked Sendable: made on the app's thread, then used only by the
// recording thread (handed over through `Thread`'s start).
private final class RecordStream: @unchecked Sendable {
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

    /// Fills `bytes` with the next sound, blocking until it is there.
    func read(into bytes: UnsafeMutableRawBufferPointer) throws(CaptureError) {
        var error: Int32 = 0
        guard pa_simple_read(self.handle, bytes.baseAddress, bytes.count, &error) == 0 else {
            throw CaptureError(.sourceVanished, "recording stopped: \(Self.describe(error))")
        }
    }

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
