import CastCommon
import CastLogging
import CastTransport
import Dispatch
import Foundation
import Logging
import NIOConcurrencyHelpers

/// The threads behind a ``RemoteDisplaySession``, meeting at the
/// ``SenderEngine`` under one lock. No actor hop per frame or packet: every
/// thread calls the engine synchronously (Docs/DESIGN.md, Concurrency).
///
/// With video: an encoder thread (VP8 or VP9 and Opus, then encrypt and
/// packetize) and a network thread (RTCP in, 10 ms pacing ticks, statistics).
///
/// Audio alone: the app's thread encodes and sends each 10 ms in
/// ``audioQueued()``, then takes the feedback that came meanwhile and the
/// tick when due; the network thread sleeps until the app has been quiet
/// for ``quietInterval`` to twice that (``QuietTimer``) and serves
/// feedback and ticks until audio comes again. A 10 ms Opus frame costs so
/// little that waking two more threads for each was a third of the
/// sender's CPU.
///
/// The threads hold the pipeline weakly between iterations, so a session
/// dropped without ``shutdown()`` still winds them down.
final class MediaPipeline: Sendable {
    /// A video frame waiting for the encoder thread.
    private struct PendingFrame: Sendable {
        var storage: PixelStorage
        var pool: BoundedPool<PixelStorage>?
        var pts: HostTime

        func release() { self.pool?.recycle(self.storage) }
    }

    private struct Control: Sendable {
        var pending: [PendingFrame] = []
        var stopping = false
        var paused = false
        var framesEncoded = 0
        var encodeTime: Duration = .zero
        var encodesInInterval = 0
        /// When the 10 ms tick and the statistics are next due, whichever thread runs them.
        var nextTick = HostTime.now
        var nextStatistics = HostTime.now.advanced(by: MediaPipeline.statisticsInterval)
    }

    /// The app thread's side of an audio-only pipeline.
    private struct CallerSide: Sendable {
        var buffer = [UInt8](repeating: 0, count: 2_048)
        /// Whether the socket and the timer are still open.
        var isOpen = true
        /// When the quiet timer, as last armed, runs out.
        var quietAt = HostTime.now
    }

    /// Frames waiting for the encoder at most; a newer frame pushes out the oldest.
    static let encoderBacklog = 2
    static let statisticsInterval: Duration = .milliseconds(500)
    /// Audio alone: how long after the app's last audio, at least, the
    /// network thread takes feedback and ticks over (the app's audio comes
    /// every 10–20 ms); at most twice as long.
    static let quietInterval: Duration = .milliseconds(40)
    /// How far ahead the app's thread arms the quiet timer.
    static let quietArming: Duration = quietInterval * 2

    let engine: NIOLockedValueBox<SenderEngine>
    let socket: UDPSocket
    /// The receiver's media port, from the ANSWER.
    let receiverPort: Int
    private let control = NIOLockedValueBox(Control())
    private let wake = DispatchSemaphore(value: 0)
    /// Audio alone: the app's side, and the timer its audio re-arms; `nil` with video.
    private let caller: NIOLockedValueBox<CallerSide>?
    private let quiet: QuietTimer?
    private let encoders: EncoderState
    private let statisticsBroadcaster = EventBroadcaster<RemoteDisplayStatistics>(
        initial: nil, buffering: .bufferingNewest(16))
    private let latest = NIOLockedValueBox(RemoteDisplayStatistics())
    private let logger: Logger

    init(
        answer: StreamingAnswer, host: String, audioQueue: AudioFrameQueue?, videoEncoders: VideoEncoders,
        logger: CastLogger
    ) throws(CastRemoteDisplayError) {
        let configuration = answer.configuration
        let socket = try UDPSocket(host: host, port: answer.udpPort)
        let hasVideo = answer.streams.contains { $0.kind == .video }
        let controller = BitrateController(
            minimum: configuration.minimumVideoBitrate, maximum: configuration.maximumVideoBitrate,
            initial: configuration.maximumVideoBitrate, audioBitrate: configuration.audio?.bitrate ?? 0)
        let engine: SenderEngine
        do {
            let streams = answer.streams.map { stream in
                var stream = stream
                if socket.isIPv6 { stream.maximumPacketSize = RTPPacketHeader.maximumIPv6PacketSize }
                return stream
            }
            let adaptation = VideoAdaptation(
                size: answer.letterbox?.frameSize ?? configuration.resolution,
                frameRate: configuration.maximumFrameRate, minimumBitrate: configuration.minimumVideoBitrate,
                enabled: configuration.adaptsToCongestion)
            engine = try SenderEngine(
                streams: streams, epoch: .now, playoutDelay: configuration.targetDelay,
                bitrate: hasVideo ? controller : nil, adaptation: hasVideo ? adaptation : nil,
                adaptiveDelay: configuration.adaptiveDelayRange, transmit: { socket.write($0) })
            self.encoders = try EncoderState(
                configuration: configuration, letterbox: answer.letterbox, hasVideo: hasVideo, audioQueue: audioQueue,
                videoEncoders: videoEncoders)
            self.quiet = hasVideo ? nil : try QuietTimer()
        } catch {
            // No thread has the socket yet; `start()` would close it after them.
            socket.close()
            throw error
        }
        self.socket = socket
        self.receiverPort = answer.udpPort
        self.engine = NIOLockedValueBox(engine)
        self.caller = hasVideo ? nil : NIOLockedValueBox(CallerSide())
        self.logger = logger.makeLogger(subsystem: "RemoteDisplay.Sender")
        self.latest.withLockedValue { $0.videoBitrate = controller.current }
    }

    /// Starts the threads: the network thread, and with video the encoder thread.
    func start() {
        let weakSelf = WeakPipeline(self)
        let running = DispatchGroup()
        // Closed only once no thread can touch them: a descriptor number
        // closed early could be reused and written to by a late send. The
        // app's thread checks `isOpen` under the same lock it sends under.
        let (socket, caller, quiet) = (self.socket, self.caller, self.quiet)
        if caller == nil {
            running.enter()
            Thread.start(named: "cast.encoder") {
                while let pipeline = weakSelf.pipeline, pipeline.encodeOnce() {}
                running.leave()
            }
        }
        running.enter()
        Thread.start(named: "cast.network") {
            var buffer = [UInt8](repeating: 0, count: 2_048)
            while true {
                // Audio alone: asleep, holding no pipeline, while the app sends.
                quiet?.waitUntilQuiet()
                guard let pipeline = weakSelf.pipeline, pipeline.networkOnce(buffer: &buffer) else { break }
            }
            running.leave()
        }
        running.notify(queue: .global()) {
            caller?.withLockedValue { $0.isOpen = false }
            socket.close()
            quiet?.close()
        }
    }

    deinit {
        self.shutdown()
    }

    /// Stops both threads (they finish their current step) and releases waiting frames.
    func shutdown() {
        let pending = self.control.withLockedValue { control in
            control.stopping = true
            defer { control.pending.removeAll() }
            return control.pending
        }
        for frame in pending { frame.release() }
        self.wake.signal()
        self.quiet?.arm(after: .zero)
        self.statisticsBroadcaster.finish()
    }

    /// Whether frames are refused for now (the session is interrupted).
    var isPaused: Bool {
        get { self.control.withLockedValue { $0.paused } }
        set { self.control.withLockedValue { $0.paused = newValue } }
    }

    // MARK: App side

    /// Queues a video frame for the encoder thread; `false` if the session
    /// is paused or stopping (the frame is released). A full backlog drops its oldest frame.
    func enqueueVideo(_ frame: consuming PixelBuffer, pts: HostTime) -> Bool {
        let (storage, pool) = frame.takeStorage()
        let pendingFrame = PendingFrame(storage: storage, pool: pool, pts: pts)
        let (accepted, evicted) = self.control.withLockedValue { control -> (Bool, PendingFrame?) in
            guard !control.stopping, !control.paused else { return (false, nil) }
            var evicted: PendingFrame?
            if control.pending.count >= Self.encoderBacklog {
                evicted = control.pending.removeFirst()
            }
            control.pending.append(pendingFrame)
            return (true, evicted)
        }
        if !accepted { pendingFrame.release() }
        if let evicted {
            evicted.release()
            self.engine.withLockedValue { $0.recordDrop(.video, forcingKeyFrame: false) }
        }
        self.wake.signal()
        return accepted
    }

    /// Tells the encoder thread audio is queued; audio alone, encodes and
    /// sends it on this thread, with the feedback and the tick due.
    func audioQueued() {
        guard let caller = self.caller, let quiet = self.quiet else {
            self.wake.signal()
            return
        }
        caller.withLockedValue { side in
            guard side.isOpen, !self.control.withLockedValue({ $0.stopping || $0.paused }) else { return }
            self.encodeAudio()
            self.receiveFeedback(into: &side.buffer)
            let now = HostTime.now
            self.runTimers(at: now)
            // Armed for two intervals whenever less than one is left: one
            // frame in about four pays the system call, and the timer runs
            // out 40–80 ms after the last audio.
            if side.quietAt.nanoseconds - now.nanoseconds < Self.quietInterval.inNanoseconds {
                quiet.arm(after: Self.quietArming)
                side.quietAt = now.advanced(by: Self.quietArming)
            }
        }
    }

    /// Whether what was sent is acknowledged and played out now.
    var hasPlayedOut: Bool { self.engine.withLockedValue { $0.hasPlayedOut(at: .now) } }

    func statistics() -> AsyncStream<RemoteDisplayStatistics> {
        self.statisticsBroadcaster.subscribe()
    }

    /// The statistics now: the counters as they stand, the encode time
    /// averaged over the last interval published.
    var currentStatistics: RemoteDisplayStatistics {
        let encoded = self.control.withLockedValue { $0.framesEncoded }
        let averageEncodeTime = self.latest.withLockedValue { $0.averageEncodeTime }
        return self.statistics(at: .now, encoded: encoded, averageEncodeTime: averageEncodeTime)
    }

    // MARK: Encoder thread

    /// One round of the encoder thread: wait for work, encode what waits.
    /// Returns `false` once the pipeline stops.
    private func encodeOnce() -> Bool {
        _ = self.wake.wait(timeout: .now() + .milliseconds(50))
        // One frame per lock: taking them singly keeps the queue's storage
        // and allocates nothing per frame.
        while true {
            let (frame, stopping, paused) = self.control.withLockedValue { control in
                (control.pending.isEmpty ? nil : control.pending.removeFirst(), control.stopping, control.paused)
            }
            guard !stopping else {
                frame?.release()
                return false
            }
            guard let frame else {
                if !paused { self.encodeAudio() }
                return true
            }
            if paused {
                frame.release()
            } else {
                self.encodeVideo(frame)
                self.encodeAudio()
            }
        }
    }

    private func encodeVideo(_ frame: PendingFrame) {
        let buffer = PixelBuffer(storage: frame.storage, pool: frame.pool)
        // One lock per frame. A lowered frame rate (VideoAdaptation) skips
        // frames before anything else; `isDue` is the encoder thread's own state.
        let decision = self.engine.withLockedValue { engine -> (Bool, Bool, Int?, VideoFormat?)? in
            let format = engine.videoFormat
            if let format, !self.encoders.isDue(frame.pts, frameRate: format.frameRate) { return nil }
            let admitted = engine.admits(.video, captureTime: frame.pts)
            if !admitted { engine.recordDrop(.video, forcingKeyFrame: false) }
            // Taken only for a frame that will be encoded: a request taken and dropped is lost.
            return (admitted, admitted && engine.takeKeyFrameRequest(), engine.videoBitrate, format)
        }
        guard case (let admitted, let keyFrame, let bitrate, let format)? = decision, admitted else { return }
        do throws(CastRemoteDisplayError) {
            let start = HostTime.now
            guard
                let encoded = try self.encoders.encodeVideo(
                    buffer, pts: frame.pts, keyFrame: keyFrame, bitrate: bitrate, size: format?.resolution)
            else { return }
            let encodeTime = start.duration(to: .now)
            self.control.withLockedValue { control in
                control.framesEncoded += 1
                control.encodeTime += encodeTime
                control.encodesInInterval += 1
            }
            try encoded.withUnsafeBytes { bytes throws(CastRemoteDisplayError) in
                try self.send(bytes, kind: .video, isKeyFrame: encoded.isKeyFrame, captureTime: encoded.pts)
            }
        } catch {
            self.logger.warning("dropping a video frame", metadata: ["cast.reason": "\(error)"])
            self.engine.withLockedValue { $0.recordDrop(.video, forcingKeyFrame: true) }
        }
    }

    /// Hands an encoded frame to the engine under its lock.
    private func send(
        _ bytes: UnsafeRawBufferPointer, kind: MediaKind, isKeyFrame: Bool, captureTime: HostTime
    ) throws(CastRemoteDisplayError) {
        try self.engine.withLockedValue { engine in
            Result { () throws(CastRemoteDisplayError) in
                _ = try engine.enqueue(bytes, kind: kind, isKeyFrame: isKeyFrame, captureTime: captureTime, now: .now)
            }
        }.get()
    }

    private func encodeAudio() {
        while true {
            do throws(CastRemoteDisplayError) {
                guard let encoded = try self.encoders.encodeAudio() else { return }
                try encoded.withUnsafeBytes { bytes throws(CastRemoteDisplayError) in
                    try self.send(bytes, kind: .audio, isKeyFrame: true, captureTime: encoded.pts)
                }
            } catch {
                self.logger.warning("dropping an audio frame", metadata: ["cast.reason": "\(error)"])
                self.engine.withLockedValue { $0.recordDrop(.audio, forcingKeyFrame: false) }
            }
        }
    }

    // MARK: Network thread

    /// One round of the network thread: feedback until the next 10 ms tick,
    /// the tick, and statistics when due. Returns `false` once the pipeline stops.
    private func networkOnce(buffer: inout [UInt8]) -> Bool {
        let (stopping, nextTick) = self.control.withLockedValue { ($0.stopping, $0.nextTick) }
        guard !stopping else { return false }
        if self.socket.waitForInput(timeout: max(HostTime.now.duration(to: nextTick), .zero)) {
            self.receiveFeedback(into: &buffer)
        }
        self.runTimers(at: .now)
        return true
    }

    /// Hands every waiting RTCP datagram to the engine.
    private func receiveFeedback(into buffer: inout [UInt8]) {
        buffer.withUnsafeMutableBytes { buffer in
            while let count = self.socket.receive(into: buffer) {
                let arrival = HostTime.now
                let datagram = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                self.engine.withLockedValue { $0.handleFeedback(datagram, arrival: arrival) }
            }
        }
    }

    /// The 10 ms tick and the statistics, each when due.
    private func runTimers(at now: HostTime) {
        let (tick, statistics) = self.control.withLockedValue { control -> (Bool, Bool) in
            let tick = now >= control.nextTick
            if tick { control.nextTick = max(control.nextTick.advanced(by: SenderEngine.burstInterval), now) }
            let statistics = now >= control.nextStatistics
            if statistics { control.nextStatistics = now.advanced(by: Self.statisticsInterval) }
            return (tick, statistics)
        }
        if tick { _ = self.engine.withLockedValue { $0.tick(at: now) } }
        if statistics { self.publishStatistics(at: now) }
    }

    private func publishStatistics(at now: HostTime) {
        let (encoded, encodeTime, encodes) = self.control.withLockedValue { control in
            defer {
                control.encodeTime = .zero
                control.encodesInInterval = 0
            }
            return (control.framesEncoded, control.encodeTime, control.encodesInInterval)
        }
        let averageEncodeTime =
            encodes > 0 ? encodeTime / encodes : self.latest.withLockedValue { $0.averageEncodeTime }
        let statistics = self.statistics(at: now, encoded: encoded, averageEncodeTime: averageEncodeTime)
        self.latest.withLockedValue { $0 = statistics }
        self.statisticsBroadcaster.yield(statistics)
    }

    /// The engine's counters and estimates at `now`, with the encoder's figures given.
    private func statistics(at now: HostTime, encoded: Int, averageEncodeTime: Duration) -> RemoteDisplayStatistics {
        self.engine.withLockedValue { engine in
            let format = engine.videoFormat
            return RemoteDisplayStatistics(
                videoFramesEncoded: encoded, video: engine.counters(.video), audio: engine.counters(.audio),
                videoBitrate: engine.videoBitrate ?? 0, bandwidthEstimate: engine.bandwidthEstimate(at: now),
                roundTripTime: engine.roundTripTime, averageEncodeTime: averageEncodeTime,
                targetDelay: engine.playoutDelay, videoResolution: format?.resolution,
                videoFrameRate: format?.frameRate, minimumRoundTripTime: engine.minimumRoundTripTime)
        }
    }
}

/// The size and rate video is encoded at (``SenderEngine/videoFormat``).
typealias VideoFormat = (resolution: RemoteDisplayConfiguration.Resolution, frameRate: Int)

/// A weak reference the pipeline's threads hold between iterations.
private final class WeakPipeline: Sendable {
    weak let pipeline: MediaPipeline?

    init(_ pipeline: MediaPipeline) {
        self.pipeline = pipeline
    }
}
