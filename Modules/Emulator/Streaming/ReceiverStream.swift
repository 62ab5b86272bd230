@_spi(Receiver) package import CastStreaming

/// One stream on the emulator's receiving side, as Open Screen's receiver
/// behaves: packets into frames (up to 256 frames past the checkpoint),
/// decryption, in-order decoding, the checkpoint, NACKs and ACKs for the
/// Cast feedback, the sender-report clock, and the measurements.
///
/// Part of the receiver's state; used under its lock.
//
// @unchecked Sendable: mutable, with C decoder contexts, and no lock of its
// own. Every instance lives in `StreamingReceiver`'s state box and is read
// or changed only inside its `withLockedValue`, so one thread at a time.
// (The RTP fuzz target, which reaches it through `package` access, uses one
// alone from its single thread.)
package final class ReceiverStream: @unchecked Sendable {
    private struct PartialFrame {
        var packets: [[UInt8]?]
        var received = 0
        /// The highest packet id received: packets above it may still be on their way.
        var highestPacket = -1
        var isKeyFrame = false
        var rtpTimestamp: UInt32 = 0
        var isComplete: Bool { self.received == self.packets.count }
    }

    /// Frames past the checkpoint the receiver holds at most.
    static let window: Int64 = 256
    /// Packets one frame may have at most (bounds memory per frame).
    static let maximumPacketsPerFrame = 4_096
    static let latencySampleLimit = 20_000

    let kind: MediaKind
    package let senderSSRC: UInt32
    let receiverSSRC: UInt32
    let payloadType: UInt8
    let timebase: Int
    private let cipher: FrameCipher
    private let videoDecoder: (any VideoDecoding)?
    private let audioDecoder: OpusDecoder?
    private let reference: StreamingReceiverConfiguration.VideoReference?
    private let observer: DecodedMediaObserver

    private var frames: [Int64: PartialFrame] = [:]
    /// Every frame at or before it is decoded or skipped.
    private(set) var checkpoint: Int64 = -1
    private(set) var latestFrame: Int64 = -1
    private(set) var playoutDelay: Duration
    /// (sender NTP time as host time, RTP timestamp, local arrival) of the last SR.
    private var lastReport: (captureClock: HostTime, rtp: UInt32, ntp: UInt64, arrival: HostTime)?
    /// Local clock − sender clock, the smallest seen (one-way delay is never negative).
    private var clockOffset: Duration?
    var needsKeyFrame: Bool
    private var highestSequence: UInt16?
    private var sequenceCycles: UInt32 = 0
    private var latencies: [Duration] = []
    /// Capture → shown of each frame decoded (at most ``latencySampleLimit``).
    private var shownLatencies: [Duration] = []
    /// The last second of decoded sound, for the report's level and frequency.
    private var soundMeter = SoundMeter()
    private var psnrSum = 0.0
    private var psnrCount = 0
    private var playoutOffsetSum: Duration = .zero
    private(set) var report = StreamReport()
    var feedbackCount: UInt8 = 0

    package init(
        kind: MediaKind, senderSSRC: UInt32, payloadType: UInt8, timebase: Int, key: StreamKey, channels: Int,
        playoutDelay: Duration, decodes: Bool, reference: StreamingReceiverConfiguration.VideoReference?,
        observer: DecodedMediaObserver = DecodedMediaObserver(), codec: VideoCodec? = nil
    ) throws(CastRemoteDisplayError) {
        self.observer = observer
        self.kind = kind
        self.senderSSRC = senderSSRC
        self.receiverSSRC = senderSSRC &+ 1
        self.payloadType = payloadType
        self.timebase = timebase
        self.cipher = try FrameCipher(key)
        self.videoDecoder = decodes && kind == .video ? makeVideoDecoder(for: codec ?? .vp8) : nil
        self.report.codec = kind == .video ? codec : nil
        self.audioDecoder = decodes && kind == .audio ? OpusDecoder(channels: channels) : nil
        self.reference = kind == .video ? reference : nil
        self.playoutDelay = playoutDelay
        self.needsKeyFrame = kind == .video
        self.report.playoutDelay = playoutDelay
    }

    var hasSenderReport: Bool { self.lastReport != nil }

    /// Whether frames past the checkpoint are still incomplete.
    var hasIncompleteFrames: Bool { self.latestFrame > self.checkpoint }

    // MARK: Input

    /// Takes a sender report for this stream.
    package func receive(_ report: SenderReport, at arrival: HostTime) {
        let senderClock = NTPTime.hostTime(report.ntpTimestamp)
        self.lastReport = (senderClock, report.rtpTimestamp, report.ntpTimestamp, arrival)
        let offset = senderClock.duration(to: arrival)
        self.clockOffset = min(self.clockOffset ?? offset, offset)
    }

    /// Takes one RTP packet; returns whether the checkpoint moved. Until the
    /// first Sender Report, packet 0 of every frame is dropped, as Open
    /// Screen's receiver does ("The Sender will have to re-transmit this
    /// dropped packet", receiver_impl.cc:323-329).
    package func receive(_ header: RTPPacketHeader, payload: ArraySlice<UInt8>, at arrival: HostTime) -> Bool {
        guard self.lastReport != nil || header.packetID != 0 else {
            self.report.packetsDroppedBeforeSenderReport += 1
            return false
        }
        guard Int(header.maxPacketID) < Self.maximumPacketsPerFrame else {
            self.report.packetsRefused += 1
            return false
        }
        self.trackSequence(header.sequenceNumber)
        let reference = max(self.latestFrame, self.checkpoint + 1)
        let frameID = FrameID.expand(header.frameID, near: reference)
        guard frameID > self.checkpoint, frameID <= self.checkpoint + Self.window else {
            self.report.duplicatePackets += 1
            return false
        }
        if let delay = header.playoutDelay, delay > 0 {
            self.playoutDelay = .milliseconds(Int(delay))
            self.report.playoutDelay = self.playoutDelay
        }
        var frame =
            self.frames[frameID]
            ?? PartialFrame(packets: Array(repeating: nil, count: Int(header.maxPacketID) + 1))
        guard frame.packets.count == Int(header.maxPacketID) + 1 else {
            self.report.packetsRefused += 1
            return false
        }
        let index = Int(header.packetID)
        guard frame.packets[index] == nil else {
            self.report.duplicatePackets += 1
            return false
        }
        frame.packets[index] = Array(payload)
        frame.received += 1
        frame.highestPacket = max(frame.highestPacket, index)
        frame.isKeyFrame = header.isKeyFrame
        frame.rtpTimestamp = header.rtpTimestamp
        self.report.packetsReceived += 1
        if frame.isComplete { self.report.framesReceived += 1 }
        self.frames[frameID] = frame
        self.latestFrame = max(self.latestFrame, frameID)
        return self.advance(at: arrival)
    }

    // MARK: Decoding

    /// Decodes every complete frame right after the checkpoint, and skips a
    /// stalled one whose playout time passed when a later frame can be
    /// decoded instead (a key frame for video). Returns whether the checkpoint moved.
    @discardableResult
    package func advance(at now: HostTime) -> Bool {
        let start = self.checkpoint
        while true {
            let next = self.checkpoint + 1
            if let frame = self.frames[next], frame.isComplete {
                self.frames[next] = nil
                self.consume(frame, id: next, at: now)
                self.checkpoint = next
                continue
            }
            guard next <= self.latestFrame, let playout = self.stalledPlayoutTime(), playout < now,
                let target = self.skipTarget()
            else { break }
            while self.checkpoint + 1 < target {
                self.frames[self.checkpoint + 1] = nil
                self.report.framesLost += 1
                self.checkpoint += 1
            }
        }
        return self.checkpoint != start
    }

    /// The next complete frame decoding can restart from.
    private func skipTarget() -> Int64? {
        var id = self.checkpoint + 2
        while id <= self.latestFrame {
            if let frame = self.frames[id], frame.isComplete, self.kind == .audio || frame.isKeyFrame { return id }
            id += 1
        }
        return nil
    }

    private func consume(_ frame: PartialFrame, id: Int64, at now: HostTime) {
        var encrypted: [UInt8] = []
        encrypted.reserveCapacity(frame.packets.reduce(0) { $0 + ($1?.count ?? 0) })
        for packet in frame.packets { encrypted += packet ?? [] }
        guard let bytes = try? self.cipher.crypt(encrypted, frameID: id) else {
            self.report.decodeErrors += 1
            return
        }
        let capture = self.captureTime(ofRTP: frame.rtpTimestamp)
        if let decoder = self.videoDecoder {
            if self.needsKeyFrame && !frame.isKeyFrame {
                self.report.framesLost += 1
                return
            }
            guard let picture = decoder.decode(bytes) else {
                self.report.decodeErrors += 1
                self.needsKeyFrame = true
                return
            }
            self.report.pictureWidth = picture.width
            self.report.pictureHeight = picture.height
            self.measurePicture(picture, capture: capture)
            self.observer.picture?(capture, picture)
        } else if let decoder = self.audioDecoder {
            guard let sound = decoder.decode(bytes) else {
                self.report.decodeErrors += 1
                return
            }
            self.soundMeter.add(sound, channels: decoder.channels)
            self.observer.sound?(capture, sound, decoder.channels)
        }
        if frame.isKeyFrame && self.kind == .video {
            self.report.keyFrames += 1
            self.needsKeyFrame = false
        }
        self.report.framesDecoded += 1
        self.report.lastFrameID = id
        guard let capture else { return }
        let decodedAt = HostTime.now
        if self.latencies.count < Self.latencySampleLimit { self.latencies.append(capture.duration(to: decodedAt)) }
        if let playout = self.playoutTime(ofCapture: capture) {
            if self.kind == .audio { self.observer.soundPlayout?(capture, playout) }
            if playout < now { self.report.framesLate += 1 }
            if self.shownLatencies.count < Self.latencySampleLimit {
                self.shownLatencies.append(capture.duration(to: max(playout, decodedAt)))
            }
            self.playoutOffsetSum += capture.duration(to: playout)
            self.report.meanPlayoutOffset = self.playoutOffsetSum / self.report.framesDecoded
        }
    }

    private func measurePicture(_ picture: DecodedPicture, capture: HostTime?) {
        guard let reference = self.reference else { return }
        guard let capture, let expected = reference(capture), let psnr = lumaPSNR(reference: expected, decoded: picture)
        else {
            self.report.unmatchedPictures += 1
            return
        }
        self.psnrSum += psnr
        self.psnrCount += 1
        self.report.minimumPSNR = min(self.report.minimumPSNR ?? psnr, psnr)
        self.report.meanPSNR = self.psnrSum / Double(self.psnrCount)
    }

    // MARK: Clocks

    /// The sender's capture time of an RTP timestamp, through the last SR.
    private func captureTime(ofRTP rtp: UInt32) -> HostTime? {
        guard let report = self.lastReport else { return nil }
        let ticks = Int64(Int32(bitPattern: rtp &- report.rtp))
        return report.captureClock.advanced(by: .nanoseconds(ticks * 1_000_000_000 / Int64(self.timebase)))
    }

    /// When the receiver plays a frame captured at `capture`: capture on
    /// the local clock plus the playout delay.
    private func playoutTime(ofCapture capture: HostTime) -> HostTime? {
        guard let offset = self.clockOffset else { return nil }
        return capture.advanced(by: offset + self.playoutDelay)
    }

    /// When the frame after the checkpoint should play: from its own
    /// timestamp, or — if none of its packets arrived — no later than the
    /// first later frame that did.
    private func stalledPlayoutTime() -> HostTime? {
        var id = self.checkpoint + 1
        while id <= self.latestFrame {
            if let frame = self.frames[id], let capture = self.captureTime(ofRTP: frame.rtpTimestamp) {
                return self.playoutTime(ofCapture: capture)
            }
            id += 1
        }
        return nil
    }

    private func trackSequence(_ sequence: UInt16) {
        guard let highest = self.highestSequence else {
            self.highestSequence = sequence
            return
        }
        let delta = Int16(bitPattern: sequence &- highest)
        if delta > 0 {
            if sequence < highest { self.sequenceCycles &+= 1 }
            self.highestSequence = sequence
        }
    }

    // MARK: Feedback

    /// This stream's compound RTCP: RR (with LSR/DLSR once an SR came), XR
    /// reference time, PLI while a key frame is needed, and Cast feedback
    /// with NACKs and CST2 ACKs.
    package func writeFeedback(at now: HostTime, into bytes: inout [UInt8]) {
        var block: ReportBlock?
        if let report = self.lastReport {
            block = ReportBlock(
                sourceSSRC: self.senderSSRC,
                extendedHighestSequence: self.sequenceCycles << 16 | UInt32(self.highestSequence ?? 0),
                lastSenderReport: NTPTime.compact(report.ntp),
                delaySinceLastSenderReport: NTPTime.compactDuration(report.arrival.duration(to: now)))
        }
        RTCPWriter.appendReceiverReport(ssrc: self.receiverSSRC, block: block, to: &bytes)
        RTCPWriter.appendReceiverReferenceTime(ssrc: self.receiverSSRC, ntp: NTPTime.from(now), to: &bytes)
        if self.needsKeyFrame {
            RTCPWriter.appendPictureLossIndication(
                senderSSRC: self.receiverSSRC, mediaSSRC: self.senderSSRC, to: &bytes)
        }
        self.feedbackCount &+= 1
        RTCPWriter.appendCastFeedback(
            CastFeedback(
                receiverSSRC: self.receiverSSRC, senderSSRC: self.senderSSRC,
                checkpointFrameID: UInt8(truncatingIfNeeded: self.checkpoint),
                playoutDelay: UInt16(clamping: self.playoutDelay.inNanoseconds / 1_000_000),
                lossFields: self.lossFields(), feedbackCount: self.feedbackCount, ackBits: self.ackBits()),
            to: &bytes)
    }

    /// NACKs for the packets known to be missing between the checkpoint and
    /// the newest frame seen: every gap in an older frame, every frame with
    /// no packet, and in the newest frame the gaps below its highest packet
    /// received — a sender sends a frame's packets in order, so the ones
    /// above may be on their way. Open Screen's receiver lists every missing
    /// packet (receiver_impl.cc:460-472) and leaves its sender to ignore
    /// NACKs of packets sent within one round trip (sender_impl.cc:563-570);
    /// that guard cannot see this emulator's own processing lag on a busy
    /// host, so here packets merely in flight are not NACKed, and a resend
    /// on a clean link means a fault. The tail of a newest frame lost whole
    /// is recovered by the sender's kickstart.
    private func lossFields() -> [LossField] {
        var fields: [LossField] = []
        var id = self.checkpoint + 1
        while id <= self.latestFrame && fields.count < 200 {
            let wire = UInt8(truncatingIfNeeded: id)
            if let frame = self.frames[id] {
                if !frame.isComplete {
                    let limit = id == self.latestFrame ? frame.highestPacket : frame.packets.count
                    var packet = 0
                    while packet < limit && fields.count < 200 {
                        guard frame.packets[packet] == nil else {
                            packet += 1
                            continue
                        }
                        var mask: UInt8 = 0
                        for bit in 0..<8 where packet + 1 + bit < limit {
                            if frame.packets[packet + 1 + bit] == nil { mask |= 1 << bit }
                        }
                        fields.append(LossField(frameID: wire, packetID: UInt16(packet), bitmask: mask))
                        packet += 9
                    }
                }
            } else {
                fields.append(LossField(frameID: wire, packetID: LossField.wholeFrame))
            }
            id += 1
        }
        return fields
    }

    /// CST2 bits: complete frames from checkpoint + 2 on.
    private func ackBits() -> [UInt8] {
        var bits: [UInt8] = []
        var id = self.checkpoint + 2
        while id <= self.latestFrame && id - self.checkpoint - 2 < 254 * 8 {
            let offset = Int(id - self.checkpoint - 2)
            if offset / 8 >= bits.count { bits.append(0) }
            if let frame = self.frames[id], frame.isComplete { bits[offset / 8] |= 1 << (offset % 8) }
            id += 1
        }
        return bits
    }

    /// Starts the counts and latency samples anew, the stream's state
    /// (its last frame, codec, picture size and playout delay) kept.
    func resetStatistics() {
        var fresh = StreamReport()
        fresh.lastFrameID = self.report.lastFrameID
        fresh.codec = self.report.codec
        fresh.pictureWidth = self.report.pictureWidth
        fresh.pictureHeight = self.report.pictureHeight
        fresh.playoutDelay = self.report.playoutDelay
        self.report = fresh
        self.latencies.removeAll(keepingCapacity: true)
        self.shownLatencies.removeAll(keepingCapacity: true)
    }

    /// The report with latency percentiles filled in.
    package var currentReport: StreamReport {
        var report = self.report
        if !self.latencies.isEmpty {
            let sorted = self.latencies.sorted()
            report.latencyP50 = sorted[sorted.count / 2]
            report.latencyP99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        }
        if !self.shownLatencies.isEmpty {
            let sorted = self.shownLatencies.sorted()
            report.shownLatencyP50 = sorted[sorted.count / 2]
            report.shownLatencyP99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        }
        report.soundLevel = self.soundMeter.level
        report.soundFrequency = self.soundMeter.frequency
        return report
    }
}
