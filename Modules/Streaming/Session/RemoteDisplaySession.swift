import CastCommon
import CastLogging
import CastTransport
import NIOConcurrencyHelpers
import Synchronization

/// Where a ``RemoteDisplaySession`` is in its life.
public enum RemoteDisplaySessionState: Sendable, Hashable {
    /// Frames are encoded and sent.
    case active
    /// The control connection is down (the session layer is reconnecting);
    /// frames are refused until it is back, and the first frame after is a key frame.
    case interrupted
    /// Over for good.
    case ended(RemoteDisplaySessionEndReason)
}

/// Why a ``RemoteDisplaySession`` ended.
public enum RemoteDisplaySessionEndReason: Sendable, Hashable {
    /// The app called ``RemoteDisplaySession/stop()``.
    case stopped
    /// The receiver app went away: stopped (by this sender by its session
    /// id, another sender, or the user) or replaced by another app.
    case receiverApplicationStopped
    /// A new session began on the same channel.
    case replaced
    /// No frame was enqueued within ``RemoteDisplayConfiguration/firstFrameDeadline``,
    /// after which receivers end the session themselves.
    case noFirstFrame
    /// The control connection dropped and the device did not come back
    /// (an ``AudioCastSession`` started through a link reconnects itself first).
    case connectionLost
}

/// A live Remote Display stream — the SDK's `GCKRemoteDisplaySession`.
///
/// It is active as soon as ``RemoteDisplayChannel/beginSession(configuration:)``
/// returns it. Render frames into buffers from ``createPixelBuffer()`` (or
/// your own ``PixelBuffer``s), stamp them with ``HostTime`` and hand them to
/// ``enqueueVideoFrame(_:pts:)``; feed audio through ``newAudioBuffer()``
/// and ``enqueueAudio(_:pts:)``, or ``makeAudioInput(sourceSampleRate:sourceChannelCount:)``
/// for other formats. Audio and video stamped from the same clock play in sync.
///
/// With video, encoding and sending run on the session's own threads;
/// enqueueing only hands a frame over. Audio alone (a speaker),
/// ``audioWasQueued()`` and ``enqueueAudio(_:pts:)`` encode and send the
/// queued audio on the calling thread (a fraction of a millisecond per
/// 10 ms), so no other thread wakes for it.
///
/// Cast Streaming is connectionless, so the session learns that the
/// receiver app went away from the control connection (its channel watches
/// the receiver's status); it then ends. Stop it yourself with ``stop()``;
/// to stop the receiver app too, end the Cast session stopping the app (by
/// its session id).
public final class RemoteDisplaySession: Sendable {
    /// The configuration in force: what was offered, within the receiver's constraints.
    public let configuration: RemoteDisplayConfiguration
    /// How the session letterboxes each picture for a receiver that shows a
    /// display of another shape and does not scale (ANSWER `display`);
    /// `nil` when frames go out as drawn.
    public let letterbox: VideoLetterbox?
    /// The audio the session sends, `nil` when the receiver took video only (or none was offered).
    public let audioQueue: AudioFrameQueue?
    private let pixelBuffers: PixelBufferPool?
    private let pipeline: MediaPipeline
    private let transportID: String
    private let stateBox: NIOLockedValueBox<RemoteDisplaySessionState>
    private let states = EventBroadcaster<RemoteDisplaySessionState>(initial: .active)
    /// Whether a frame (of either stream) was enqueued: the first-frame watchdog's question.
    private let hasFrame = Atomic<Bool>(false)
    private let watchdog = NIOLockedValueBox<Task<Void, Never>?>(nil)

    init(
        answer: StreamingAnswer, host: String, transportID: String, videoEncoders: VideoEncoders,
        clock: any Clock<Duration>, logger: CastLogger
    ) throws(CastRemoteDisplayError) {
        let configuration = answer.configuration
        let hasVideo = answer.streams.contains { $0.kind == .video }
        var audioQueue: AudioFrameQueue?
        if let audio = configuration.audio, answer.streams.contains(where: { $0.kind == .audio }) {
            let format = try AudioStreamFormat(
                sampleRate: RemoteDisplayConfiguration.Audio.sampleRate, channelCount: audio.channelCount)
            audioQueue = try AudioFrameQueue(format: format)
        }
        self.pixelBuffers =
            hasVideo
            ? try PixelBufferPool(width: configuration.resolution.width, height: configuration.resolution.height)
            : nil
        self.audioQueue = audioQueue
        self.pipeline = try MediaPipeline(
            answer: answer, host: host, audioQueue: audioQueue, videoEncoders: videoEncoders, logger: logger)
        self.configuration = configuration
        self.letterbox = hasVideo ? answer.letterbox : nil
        self.transportID = transportID
        self.stateBox = NIOLockedValueBox(.active)
        self.pipeline.start()
        self.startWatchdog(deadline: configuration.firstFrameDeadline, clock: clock, logger: logger)
    }

    /// Warns when half the first-frame deadline passed without a frame, and
    /// ends the session at the deadline, as the receiver would. Both
    /// instants are counted from the start on `clock`.
    private func startWatchdog<C: Clock<Duration>>(deadline: Duration, clock: C, logger: CastLogger) {
        let logger = logger.makeLogger(subsystem: "RemoteDisplay.Session")
        let start = clock.now
        let task = Task { [weak self] in
            try? await clock.sleep(until: start.advanced(by: deadline / 2), tolerance: nil)
            guard let self, !Task.isCancelled, !self.hasFrame.load(ordering: .relaxed) else { return }
            logger.warning(
                "no frame enqueued yet; the receiver ends the session without one",
                metadata: ["cast.deadline": "\(deadline)"])
            try? await clock.sleep(until: start.advanced(by: deadline), tolerance: nil)
            guard !Task.isCancelled, !self.hasFrame.load(ordering: .relaxed) else { return }
            logger.error("no frame within the first-frame deadline; ending the session")
            self.end(.noFirstFrame)
        }
        self.watchdog.withLockedValue { $0 = task }
    }

    /// Returns once the first-frame watchdog has decided: a frame came in
    /// time, the session ended without one, or it ended first. Tests wait
    /// on it after advancing their clock past the deadline.
    package func firstFrameWatchdogFinished() async {
        await self.watchdog.withLockedValue { $0 }?.value
    }

    // MARK: State

    /// The session's state now.
    public var state: RemoteDisplaySessionState { self.stateBox.withLockedValue { $0 } }

    /// The current state, then every change, until the session ends; each call gives a new stream.
    public func stateUpdates() -> AsyncStream<RemoteDisplaySessionState> {
        self.states.subscribe()
    }

    /// Statistics every 500 ms until the session ends; each call gives a new stream.
    public func statistics() -> AsyncStream<RemoteDisplayStatistics> {
        self.pipeline.statistics()
    }

    /// The statistics now: every counter as it stands at the call (the
    /// stream from ``statistics()`` publishes them every 500 ms); the encode
    /// time is the average over the last 500 ms published.
    public var currentStatistics: RemoteDisplayStatistics { self.pipeline.currentStatistics }

    /// The playout delay: how long after capture the receiver plays each
    /// frame. Setting it sends the new value in-band, with the next frame of
    /// each stream (RTP adaptive playout delay extension); values are
    /// clamped to 1 ms…5 s.
    public var targetDelay: Duration {
        get { self.pipeline.engine.withLockedValue { $0.playoutDelay } }
        set {
            let delay = min(
                max(newValue, RemoteDisplayConfiguration.targetDelayRange.lowerBound),
                RemoteDisplayConfiguration.targetDelayRange.upperBound)
            self.pipeline.engine.withLockedValue { $0.playoutDelay = delay }
        }
    }

    /// Waits until what was enqueued has played out on the receiver: every
    /// frame acknowledged and the newest one's playout time (its capture
    /// time plus the target delay) come — or until `limit` passes (default:
    /// the target delay and a second), the session stops being active, or
    /// the task is cancelled. Call it before ending a session whose last
    /// moments matter, such as a file's end: the receiver app stops at once
    /// when it is told to, with what it still holds unplayed.
    ///
    /// The session's frames are timed on the host's monotonic clock
    /// (``HostTime``), and so is this wait.
    public func playOut(within limit: Duration? = nil) async {
        let deadline = HostTime.now.advanced(by: limit ?? self.targetDelay + .seconds(1))
        while self.state == .active, !self.pipeline.hasPlayedOut, HostTime.now < deadline {
            do { try await Task.sleep(for: Self.playOutPoll) } catch { return }
        }
    }

    /// How often ``playOut(within:)`` looks: acknowledgements come every 10–20 ms.
    static let playOutPoll: Duration = .milliseconds(10)

    /// Ends the session: the threads stop and nothing more is sent. The
    /// receiver app keeps running; stop it through the Cast session.
    public func stop() {
        self.end(.stopped)
    }

    // MARK: Video

    /// An encoder-ready buffer at the session's resolution to draw the next
    /// frame into, or `nil` when all are in use (or there is no video stream).
    ///
    /// Where Linux differs from the SDK: its buffers are `'420v'` (NV12
    /// `CVPixelBuffer`s, what VideoToolbox encodes); these are I420, the
    /// layout libvpx encodes without a conversion — the same "encoder
    /// affinity" the SDK asks for. NV12 frames of your own are taken too.
    public func createPixelBuffer() -> PixelBuffer? {
        self.pixelBuffers?.makeBuffer()
    }

    /// Hands a frame to the encoder.
    ///
    /// - Parameters:
    ///   - frame: I420 or NV12 at ``configuration``'s resolution.
    ///   - pts: its capture time on the host clock.
    /// - Returns: `false` when the frame was not taken: the session is
    ///   interrupted, or has no video stream.
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/frameFormatMismatch`` for
    ///   another size; ``CastRemoteDisplayError/Code-swift.struct/sessionEnded`` once ended.
    @discardableResult
    public func enqueueVideoFrame(_ frame: consuming PixelBuffer, pts: HostTime) throws(CastRemoteDisplayError) -> Bool
    {
        try self.requireNotEnded()
        let resolution = self.configuration.resolution
        guard frame.width == resolution.width, frame.height == resolution.height else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch, "frame is \(frame.width)×\(frame.height); the session sends \(resolution)")
        }
        guard self.pixelBuffers != nil else { return false }
        let taken = self.pipeline.enqueueVideo(frame, pts: pts)
        if taken { self.hasFrame.store(true, ordering: .relaxed) }
        return taken
    }

    // MARK: Audio

    /// A buffer in the session's audio format (48 kHz deinterleaved float)
    /// whose samples the session takes without copying, or `nil` when all are
    /// in use or there is no audio stream. The SDK's `newAudioBuffer`.
    public func newAudioBuffer() -> AudioBuffer? {
        self.audioQueue?.makeBuffer()
    }

    /// Queues audio whose first sample was captured at `pts`: a buffer from
    /// ``newAudioBuffer()`` without copying, any other buffer copied.
    ///
    /// - Returns: how many frames were queued and how many did not fit.
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` for another
    ///   channel count; ``CastRemoteDisplayError/Code-swift.struct/sessionEnded`` once ended.
    @discardableResult
    public func enqueueAudio(_ buffer: consuming AudioBuffer, pts: HostTime) throws(CastRemoteDisplayError)
        -> AudioEnqueueResult
    {
        try self.requireNotEnded()
        guard let queue = self.audioQueue, self.state == .active else {
            return AudioEnqueueResult(acceptedFrames: 0, droppedFrames: buffer.frameCount)
        }
        let result = try queue.enqueue(buffer, pts: pts)
        self.audioWasQueued()
        return result
    }

    /// Tells the session that audio was queued straight onto ``audioQueue``
    /// (through an ``AudioInput``), so it encodes it now: on the session's
    /// encoder thread with video, on the calling thread for audio alone.
    public func audioWasQueued() {
        self.hasFrame.store(true, ordering: .relaxed)
        self.pipeline.audioQueued()
    }

    /// An input that converts `Int16`, `Int32` or `Float` audio at any rate
    /// and channel count into the session's format — the SDK's
    /// `GCKRemoteDisplayAudioInput`. After each `enqueue` on it, call
    /// ``audioWasQueued()``.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration``
    ///   for a rate or channel count out of range, or when there is no audio stream.
    public func makeAudioInput(sourceSampleRate: Int, sourceChannelCount: Int) throws(CastRemoteDisplayError)
        -> AudioInput
    {
        guard let queue = self.audioQueue else {
            throw CastRemoteDisplayError(.invalidConfiguration, "the session has no audio stream")
        }
        return try AudioInput(sourceSampleRate: sourceSampleRate, sourceChannelCount: sourceChannelCount, queue: queue)
    }

    // MARK: Driven by the channel

    /// The receiver app's transport this session streams to (its
    /// `transportId` in RECEIVER_STATUS): where a channel of the session is
    /// attached again on a new connection after the first was lost.
    public var applicationTransportID: String { self.transportID }

    /// The control connection went down: refuse frames until it is back.
    func interrupt() {
        let changed = self.stateBox.withLockedValue { state -> Bool in
            guard state == .active else { return false }
            state = .interrupted
            return true
        }
        guard changed else { return }
        self.pipeline.isPaused = true
        self.states.yield(.interrupted)
    }

    /// The control connection is back (to `host`): send again, key frame first.
    func resume(host: String) {
        let changed = self.stateBox.withLockedValue { state -> Bool in
            guard state == .interrupted else { return false }
            state = .active
            return true
        }
        guard changed else { return }
        try? self.pipeline.socket.redirect(host: host, port: self.pipeline.receiverPort)
        self.pipeline.engine.withLockedValue { $0.requestKeyFrame() }
        self.pipeline.isPaused = false
        self.states.yield(.active)
    }

    /// Ends the session for `reason`; ending an ended session does nothing.
    func end(_ reason: RemoteDisplaySessionEndReason) {
        let changed = self.stateBox.withLockedValue { state -> Bool in
            if case .ended = state { return false }
            state = .ended(reason)
            return true
        }
        guard changed else { return }
        self.watchdog.withLockedValue { $0?.cancel() }
        self.pipeline.shutdown()
        self.states.finish(with: .ended(reason))
    }

    private func requireNotEnded() throws(CastRemoteDisplayError) {
        if case .ended(let reason) = self.state {
            throw CastRemoteDisplayError(.sessionEnded, "the Remote Display session ended (\(reason))")
        }
    }
}
