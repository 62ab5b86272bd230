import CastEmulator

@_spi(Receiver) @testable import CastStreaming

/// The sender's engine and the emulator's receiving side joined through the
/// emulator's impaired link at virtual time: what a session does over a
/// capped network, minutes of it in milliseconds, the same every run.
///
/// The parts are the product's own — `SenderEngine` (bitrate controller,
/// video adaptation, resends), `ImpairedLink` and `ReceiverStreams` (Open
/// Screen's feedback schedule) — driven as `MediaPipeline` and
/// `StreamingReceiver` drive them: a 10 ms tick on each side, feedback due
/// after each datagram. The encoder is an ideal one: each frame is the
/// bitrate's share of a second (a key frame three times that), at the
/// frame rate the adaptation keeps.
final class ClosedLoopStreaming {
    let configuration: RemoteDisplayConfiguration
    let engine: SenderEngine
    private(set) var now: HostTime
    private var link: ImpairedLink
    private var receiver: ReceiverStreams
    /// Datagrams on their way, with when they arrive and which way they go.
    private var inFlight: [(at: HostTime, bytes: [UInt8], toReceiver: Bool)] = []
    /// What the engine transmitted during the current step.
    private let outbox = Outbox()
    private let start: HostTime
    private var frameIndex = 0
    /// Video frames handed to the engine, and those it refused.
    private(set) var framesEnqueued = 0
    /// How long after its capture each frame reaches the engine (the encoder's time), by its index.
    var encodeTime: (Int) -> Duration = { _ in .zero }
    /// The target delay each frame enqueued was sent with.
    private(set) var delays: [Duration] = []
    /// The receiver's report of the video.
    var received: StreamReport { self.receiver.streams[0].currentReport }

    final class Outbox: @unchecked Sendable {
        // @unchecked Sendable: appended to only by the engine's transmit closure, which runs
        // inside the engine calls this simulation makes on its one thread, and drained between them.
        var datagrams: [[UInt8]] = []
    }

    init(configuration: RemoteDisplayConfiguration, impairment: NetworkImpairment) throws {
        self.configuration = configuration
        let start = HostTime(nanoseconds: 1_000_000_000)
        self.start = start
        self.now = start
        let key = StreamKey(key: Array(repeating: 7, count: 16), ivMask: Array(repeating: 9, count: 16))!
        let video = StreamParameters(
            kind: .video, ssrc: 600_001, receiverSSRC: 600_002, payloadType: 96, rtpTimebase: 90_000, key: key)
        let outbox = self.outbox
        self.engine = try SenderEngine(
            streams: [video], epoch: start, playoutDelay: configuration.targetDelay,
            bitrate: BitrateController(
                minimum: configuration.minimumVideoBitrate, maximum: configuration.maximumVideoBitrate,
                initial: configuration.maximumVideoBitrate, audioBitrate: 0),
            adaptation: VideoAdaptation(
                size: configuration.resolution, frameRate: configuration.maximumFrameRate,
                minimumBitrate: configuration.minimumVideoBitrate, enabled: configuration.adaptsToCongestion),
            adaptiveDelay: configuration.adaptiveDelayRange,
            transmit: { outbox.datagrams.append(Array($0)) })
        self.link = ImpairedLink(impairment)
        self.receiver = ReceiverStreams([
            try ReceiverStream(
                kind: .video, senderSSRC: 600_001, payloadType: 96, timebase: 90_000, key: key, channels: 0,
                playoutDelay: configuration.targetDelay, decodes: false, reference: nil)
        ])
    }

    /// The link from now on.
    func impair(_ impairment: NetworkImpairment) { self.link.update(impairment) }

    /// The video's statistics as the session reports them.
    var video: StreamStatistics? { self.engine.counters(.video) }

    /// Runs for `duration` of virtual time, a millisecond at a time.
    func run(for duration: Duration) {
        let end = self.now.advanced(by: duration)
        while self.now < end { self.step() }
    }

    /// Runs until `condition` holds, checked every virtual second, at most
    /// `limit`; whether it held.
    func run(until condition: () -> Bool, within limit: Duration) -> Bool {
        let end = self.now.advanced(by: limit)
        while self.now < end {
            self.run(for: .seconds(1))
            if condition() { return true }
        }
        return condition()
    }

    private func step() {
        self.deliver()
        let elapsed = self.start.duration(to: self.now)
        if elapsed.inNanoseconds % 10_000_000 == 0 {
            _ = self.engine.tick(at: self.now)
            self.receiver.tick(at: self.now)
            self.sendFeedback()
        }
        let frameInterval = Duration.seconds(1) / self.configuration.maximumFrameRate
        if self.start.advanced(by: frameInterval * self.frameIndex) <= self.now {
            self.encodeFrame()
            self.frameIndex += 1
        }
        self.transmit()
        self.now = self.now.advanced(by: .milliseconds(1))
    }

    /// Hands over what has arrived by now: media to the receiver, feedback to the sender.
    private func deliver() {
        let due = self.inFlight.filter { $0.at <= self.now }.sorted { $0.at < $1.at }
        guard !due.isEmpty else { return }
        self.inFlight.removeAll { $0.at <= self.now }
        for datagram in due {
            if datagram.toReceiver {
                _ = self.receiver.take(datagram.bytes, at: datagram.at)
                self.sendFeedback()
            } else {
                datagram.bytes.withUnsafeBytes { self.engine.handleFeedback($0, arrival: datagram.at) }
            }
        }
    }

    /// The receiver's feedback due now, on its way back.
    private func sendFeedback() {
        let back = self.link.impairment.returnDelay
        for reply in self.receiver.dueFeedback(at: self.now) {
            self.inFlight.append((self.now.advanced(by: back), reply, false))
        }
    }

    /// One frame as `MediaPipeline` hands it over: skipped at a lowered
    /// frame rate, refused past the in-flight limits, else the bitrate's share.
    private func encodeFrame() {
        let maximumRate = self.configuration.maximumFrameRate
        let rate = self.engine.videoFormat?.frameRate ?? maximumRate
        guard rate >= maximumRate || self.frameIndex % max(1, maximumRate / max(rate, 1)) == 0 else { return }
        let capture = self.now.advanced(by: .zero - self.encodeTime(self.framesEnqueued))
        guard self.engine.admits(.video, captureTime: capture) else {
            self.engine.recordDrop(.video, forcingKeyFrame: false)
            return
        }
        let keyFrame = self.engine.takeKeyFrameRequest() || self.framesEnqueued == 0
        let share = (self.engine.videoBitrate ?? self.configuration.maximumVideoBitrate) / 8 / rate
        let frame = [UInt8](repeating: 0x5A, count: max(64, keyFrame ? share * 3 : share))
        _ = try? frame.withUnsafeBytes {
            try self.engine.enqueue($0, kind: .video, isKeyFrame: keyFrame, captureTime: capture, now: self.now)
        }
        self.framesEnqueued += 1
        self.delays.append(self.engine.playoutDelay)
    }

    /// What the engine sent this step, onto the link.
    private func transmit() {
        for datagram in self.outbox.datagrams {
            if let arrival = self.link.arrival(ofBytes: datagram.count, at: self.now) {
                self.inFlight.append((arrival, datagram, true))
            }
        }
        self.outbox.datagrams.removeAll(keepingCapacity: true)
    }
}
