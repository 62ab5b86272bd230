/// The sending side of a Cast Streaming session, as one synchronous state
/// machine (Docs/spec/cast-streaming.md §2–§5): frames in, packets out in
/// 10 ms bursts (RTCP first, audio before video), RTCP feedback in, and
/// every 500 ms a bitrate step.
///
/// No threads and no locks of its own: the session calls it under one lock
/// from its encoder thread (frames) and network thread (ticks, feedback);
/// tests drive it directly with their own clock and transmit function.
//
// @unchecked Sendable: mutable state with no lock of its own. A session keeps
// it in `MediaPipeline.engine`, a NIOLockedValueBox, and touches it only inside
// `withLockedValue`; tests use one from a single task. So no two threads ever run
// its methods at once.
package final class SenderEngine: @unchecked Sendable {
    /// Packets per 10 ms burst: max(1, (24·2²⁰ / 8 / packet size) / 100) — 21 at 1472 bytes.
    static let burstSize = max(1, (24 * 1_048_576 / 8 / RTPPacketHeader.maximumPacketSize) / 100)
    static let burstInterval: Duration = .milliseconds(10)

    private let audio: StreamSender?
    private let video: StreamSender?
    /// The streams in sending order, audio before video; made once, so
    /// sending walks them without allocating.
    private let streams: [StreamSender]
    private let transmit: (UnsafeRawBufferPointer) -> Void
    private var estimator = BandwidthEstimator(maximumPacketsPerBurst: SenderEngine.burstSize)
    private var bitrate: BitrateController?
    private var adaptation: VideoAdaptation?
    /// Low latency's target delay, following the link; `nil` for a fixed delay.
    private var delayController: PlayoutDelayController?
    private var burstStart: HostTime?
    private var burstSent = 0
    private var reportScratch: [UInt8] = []
    /// Each RTCP datagram is parsed into this one value, reusing its arrays.
    private var feedback = RTCPCompound()
    private var droppedSinceStep = false
    /// The video stream's octet counter at the last bitrate step.
    private var videoBytesAtStep = 0
    private(set) var malformedFeedback = 0

    package init(
        streams: [StreamParameters], epoch: HostTime, playoutDelay: Duration, bitrate: BitrateController?,
        adaptation: VideoAdaptation? = nil, adaptiveDelay: ClosedRange<Duration>? = nil,
        transmit: @escaping (UnsafeRawBufferPointer) -> Void
    ) throws(CastRemoteDisplayError) {
        var audio: StreamSender?
        var video: StreamSender?
        for parameters in streams {
            let sender = try StreamSender(parameters: parameters, epoch: epoch, playoutDelay: playoutDelay)
            if parameters.kind == .audio { audio = sender } else { video = sender }
        }
        self.audio = audio
        self.video = video
        self.streams = [audio, video].compactMap { $0 }
        self.bitrate = bitrate
        self.adaptation = adaptation
        self.delayController = adaptiveDelay.map(PlayoutDelayController.init(range:))
        self.transmit = transmit
        self.reportScratch.reserveCapacity(64)
    }

    private func stream(_ kind: MediaKind) -> StreamSender? {
        kind == .audio ? self.audio : self.video
    }

    // MARK: Frames

    /// Whether a `kind` frame captured at `captureTime` would be accepted
    /// now; asked before encoding so a frame that would be refused costs nothing.
    func admits(_ kind: MediaKind, captureTime: HostTime) -> Bool {
        self.stream(kind)?.admits(captureTime: captureTime) ?? false
    }

    /// Takes one encoded frame: encrypts and packetizes it, then sends what
    /// the current burst allows. Returns `false` when the in-flight limits
    /// refuse it (dropped; a dropped video frame makes the next a key frame).
    @discardableResult
    package func enqueue(
        _ bytes: UnsafeRawBufferPointer, kind: MediaKind, isKeyFrame: Bool, captureTime: HostTime, now: HostTime
    ) throws(CastRemoteDisplayError) -> Bool {
        guard let stream = self.stream(kind) else { return false }
        guard stream.admits(captureTime: captureTime) else {
            self.recordDrop(kind, forcingKeyFrame: kind == .video)
            return false
        }
        try stream.packetize(bytes, isKeyFrame: isKeyFrame, captureTime: captureTime)
        self.flush(at: now)
        return true
    }

    /// Counts a frame of `kind` dropped before it was sent. A video frame
    /// dropped after encoding forces a key frame: the next delta would
    /// reference a frame the receiver never gets.
    func recordDrop(_ kind: MediaKind, forcingKeyFrame: Bool) {
        guard let stream = self.stream(kind) else { return }
        stream.framesDropped += 1
        self.droppedSinceStep = true
        self.delayController?.recordDrop()
        if forcingKeyFrame { stream.keyFrameRequested = true }
    }

    /// Whether the next video frame must be a key frame (PLI, a drop, a
    /// resumption); asking clears the request.
    func takeKeyFrameRequest() -> Bool {
        guard let video = self.video, video.keyFrameRequested else { return false }
        video.keyFrameRequested = false
        video.keyFrameAwaited = true
        return true
    }

    /// Asks for a key frame next (a resumption after an interruption).
    func requestKeyFrame() {
        self.video?.keyFrameRequested = true
    }

    /// The playout delay; a change goes in-band with the next frame of each stream.
    var playoutDelay: Duration {
        get { self.video?.playoutDelay ?? self.audio?.playoutDelay ?? .zero }
        set { for stream in self.streams { stream.playoutDelay = newValue } }
    }

    /// Whether every stream's frames are acknowledged and played out at `now`
    /// (``StreamSender/hasPlayedOut(at:)``).
    func hasPlayedOut(at now: HostTime) -> Bool {
        self.streams.allSatisfy { $0.hasPlayedOut(at: now) }
    }

    /// The video bitrate the controller sets.
    var videoBitrate: Int? { self.bitrate?.current }

    /// The frame size and rate video is encoded at now (``VideoAdaptation``);
    /// `nil` without adaptation.
    var videoFormat: VideoFormat? {
        self.adaptation.map { ($0.resolution(of: $0.level), $0.level.frameRate) }
    }

    // MARK: Sending

    /// Sends what the current 10 ms burst still allows: due sender reports
    /// first, then each stream's resends and new packets, audio first.
    func flush(at now: HostTime) {
        if let start = self.burstStart, start.duration(to: now) < Self.burstInterval {
            // Same burst.
        } else {
            self.burstStart = now
            self.burstSent = 0
        }
        var budget = Self.burstSize - self.burstSent
        for stream in self.streams where budget > 0 && stream.needsSenderReport(at: now) {
            stream.writeSenderReport(at: now, into: &self.reportScratch)
            self.reportScratch.withUnsafeBytes { self.transmit($0) }
            budget -= 1
        }
        var mediaPackets = 0
        for stream in self.streams {
            while budget > 0, stream.sendNextPacket(at: now, transmit: self.transmit) {
                budget -= 1
                mediaPackets += 1
            }
        }
        if mediaPackets > 0 { self.estimator.recordSent(packets: mediaPackets, at: now) }
        self.burstSent = Self.burstSize - budget
    }

    /// The 10 ms tick: kickstart stalled frames, send, follow the link with
    /// the target delay (low latency), and step the bitrate
    /// (and with it the video's size and rate, ``VideoAdaptation``).
    /// Returns the new video bitrate when it changed.
    package func tick(at now: HostTime) -> Int? {
        for stream in self.streams { stream.kickstartIfStalled(at: now) }
        self.flush(at: now)
        if var controller = self.delayController {
            if let delay = controller.update(at: now, current: self.playoutDelay) { self.playoutDelay = delay }
            self.delayController = controller
        }
        guard var controller = self.bitrate else { return nil }
        let previous = controller.current
        let videoBytes = Int(self.video?.octetsSent ?? 0)
        let step = controller.update(
            at: now, framesDropped: self.droppedSinceStep, estimate: self.estimator.estimate(at: now),
            bytesSent: Int(UInt32(truncatingIfNeeded: videoBytes &- self.videoBytesAtStep)))
        self.bitrate = controller
        guard let step else { return nil }
        if var adaptation = self.adaptation {
            let usable = self.estimator.estimate(at: now).map {
                max(Int(Double($0) * 0.8), BitrateController.floor) - controller.audioBitrate
            }
            _ = adaptation.update(bitrate: step, usable: usable, framesDropped: self.droppedSinceStep, at: now)
            self.adaptation = adaptation
        }
        self.droppedSinceStep = false
        self.videoBytesAtStep = videoBytes
        return step == previous ? nil : step
    }

    // MARK: Feedback

    /// Applies one RTCP datagram from the receiver to the stream whose
    /// receiver wrote it (by SSRC, as Open Screen's sender_packet_router.cc:103,
    /// :113 routes); malformed ones, and ones from no stream's receiver, are
    /// counted and dropped.
    package func handleFeedback(_ bytes: UnsafeRawBufferPointer, arrival: HostTime) {
        guard RTCPCompound.parse(bytes, into: &self.feedback), let author = self.feedback.authorSSRC,
            let stream = self.streams.first(where: { $0.parameters.receiverSSRC == author })
        else {
            self.malformedFeedback += 1
            return
        }
        let halfRoundTrip = Duration(nanoseconds: (stream.roundTripTime ?? .zero).inNanoseconds / 2)
        stream.apply(self.feedback, arrival: arrival) { bytes, time, captureTime in
            self.estimator.recordAcknowledged(bytes: bytes, at: time)
            self.delayController?.recordDelivery(
                captureTime: captureTime, arrival: arrival.advanced(by: .zero - halfRoundTrip))
        }
        self.flush(at: arrival)
    }

    // MARK: Statistics

    /// The counters of `kind`'s stream.
    func counters(_ kind: MediaKind) -> StreamStatistics? {
        guard let stream = self.stream(kind) else { return nil }
        return StreamStatistics(
            framesSent: stream.framesSent, framesAcknowledged: stream.framesAcknowledged,
            framesDropped: stream.framesDropped, framesInFlight: stream.framesInFlight,
            keyFrames: stream.keyFramesSent, packetsSent: Int(stream.packetsSent),
            retransmittedPackets: stream.retransmittedPackets)
    }

    /// The smoothed round-trip time, from whichever stream has one.
    var roundTripTime: Duration? { self.video?.roundTripTime ?? self.audio?.roundTripTime }

    /// The shortest recent round trip, from whichever stream has one.
    var minimumRoundTripTime: Duration? { self.video?.minimumRoundTripTime ?? self.audio?.minimumRoundTripTime }

    /// The bandwidth estimate now, bits per second.
    func bandwidthEstimate(at now: HostTime) -> Int? { self.estimator.estimate(at: now) }
}
