/// One stream's sending side: frame ids, encryption and packetizing into
/// the retransmission window, the send cursor and resend queue the pacer
/// drains, ACK/NACK/kickstart, sender reports and RTT
/// (Docs/spec/cast-streaming.md §2–§5).
///
/// Plain synchronous code over reused slots, owned by the engine and used
/// only under its lock.
final class StreamSender {
    struct PacketReference {
        var frameID: Int64
        var packetID: Int
    }

    /// The most frames unacknowledged at once.
    static let maximumFramesInFlight = 120
    /// Resend requests waiting at most; beyond, the oldest are forgotten (the receiver NACKs again).
    static let resendQueueCapacity = 4_096
    static let senderReportInterval: Duration = .milliseconds(500)
    /// The least round trip taken from a report: a smaller sample counts as this.
    static let shortestRoundTrip: Duration = .microseconds(75)

    let parameters: StreamParameters
    private let cipher: FrameCipher
    private let epoch: HostTime
    /// Frames in the window by the low 8 bits of their id; an acknowledged
    /// frame's slot moves to `spareSlots` for the next frame, so the slots
    /// (and their packet memory) number the frames in flight, not 256.
    private var slots: [SentFrame?] = Array(repeating: nil, count: 256)
    private var spareSlots: [SentFrame] = []
    /// The most packets a frame of this stream has had: what a slot grows to.
    private var largestPacketCount = 0
    /// The newest frame id handed out; −1 before the first.
    private(set) var lastEnqueued: Int64 = -1
    /// Every frame at or before it is acknowledged.
    private(set) var checkpoint: Int64 = -1
    /// The capture time of the newest frame handed out.
    private var lastCaptureTime: HostTime?
    private var sequenceNumber: UInt16
    private var cursor = PacketReference(frameID: 0, packetID: 0)
    private var resend: [PacketReference]
    private var resendHead = 0
    private var resendCount = 0
    /// The playout delay in force, and the one last announced in-band.
    var playoutDelay: Duration
    private var announcedDelay: Duration?
    private var lastKeyFrameID: Int64 = -1
    /// (LSR, send time) of recent SRs, to turn report blocks into RTT.
    private var reportHistory: [(lsr: UInt32, sentAt: HostTime)] = []
    private var lastReportAt: HostTime?
    /// The newest frame enqueued when the last SR went out.
    private var lastReportedFrame: Int64 = -1
    private var newestReferenceTime: UInt64 = 0
    private(set) var roundTripTime: Duration?
    /// The shortest round trip of the last ``roundTripWindow`` seconds: the
    /// link's own delay, without the queueing and jitter the smoothed one
    /// carries, and without a second in which the receiver (or this machine)
    /// was too busy to answer at once.
    private(set) var minimumRoundTripTime: Duration?
    /// The shortest round trip of each recent second, oldest first.
    private var roundTripSeconds: [(second: Int64, shortest: Duration)] = []
    static let roundTripWindow = 10
    /// A key frame is wanted (PLI, or a dropped video frame).
    var keyFrameRequested = false
    /// A key frame was taken for encoding and no frame is enqueued since: the
    /// receiver repeats its PLI in every feedback until a key frame
    /// arrives, and those repeats must not force a second one (Open Screen
    /// cast/streaming/sender.cc, OnReceiverIndicatesPictureLoss: "if a key
    /// frame is already in-flight, don't make a state change that would
    /// cause this Sender to force another key frame").
    var keyFrameAwaited = false

    // Counters for statistics and SRs.
    private(set) var packetsSent: UInt32 = 0
    private(set) var octetsSent: UInt32 = 0
    private(set) var framesSent = 0
    private(set) var framesAcknowledged = 0
    var framesDropped = 0
    private(set) var retransmittedPackets = 0
    private(set) var keyFramesSent = 0

    init(parameters: StreamParameters, epoch: HostTime, playoutDelay: Duration) throws(CastRemoteDisplayError) {
        self.parameters = parameters
        self.cipher = try FrameCipher(parameters.key)
        self.epoch = epoch
        self.playoutDelay = playoutDelay
        self.sequenceNumber = UInt16.random(in: .min ... .max)
        self.resend = Array(repeating: PacketReference(frameID: -1, packetID: 0), count: Self.resendQueueCapacity)
        self.reportHistory.reserveCapacity(8)
        self.spareSlots.reserveCapacity(self.slots.count)
    }

    // MARK: Admission and packetizing

    /// Frames sent and not yet acknowledged.
    var framesInFlight: Int {
        var count = 0
        var id = self.checkpoint + 1
        while id <= self.lastEnqueued {
            if let slot = self.slot(id), !slot.isAcknowledged { count += 1 }
            id += 1
        }
        return count
    }

    /// Whether a frame captured at `captureTime` fits the in-flight limits:
    /// at most 120 frames, and media from the oldest unacknowledged frame to
    /// it no longer than targetDelay/2 + RTT/2.
    func admits(captureTime: HostTime) -> Bool {
        guard self.lastEnqueued - self.checkpoint < Int64(Self.maximumFramesInFlight) else { return false }
        var id = self.checkpoint + 1
        while id <= self.lastEnqueued {
            if let slot = self.slot(id), !slot.isAcknowledged {
                // In nanoseconds, as every per-frame time here: `Duration / Int`
                // and `Duration * Int` are generic (see `Duration(nanoseconds:)`).
                let limit = (self.playoutDelay.inNanoseconds + (self.roundTripTime?.inNanoseconds ?? 0)) / 2
                return captureTime.nanoseconds - slot.captureTime.nanoseconds <= limit
            }
            id += 1
        }
        return true
    }

    /// Encrypts `bytes` as the next frame and splits it into packets in its
    /// slot; they go out as the pacer drains the cursor.
    func packetize(
        _ bytes: UnsafeRawBufferPointer, isKeyFrame: Bool, captureTime: HostTime
    ) throws(CastRemoteDisplayError) {
        let packetCount = max(
            1, (bytes.count + self.parameters.maximumPayloadSize - 1) / self.parameters.maximumPayloadSize)
        guard packetCount < RTPPacketHeader.maximumPacketCount else {
            throw CastRemoteDisplayError(.invalidConfiguration, "a \(bytes.count)-byte frame needs too many packets")
        }
        let frameID = self.lastEnqueued + 1
        self.largestPacketCount = max(self.largestPacketCount, packetCount)
        // Twice the largest frame so far: the rate control's overshoots fit
        // without a slot growing again once the stream has settled.
        let reserved = 2 * self.largestPacketCount
        let slot =
            self.slots[Int(frameID & 0xFF)] ?? self.spareSlots.popLast() ?? SentFrame(packetCapacity: reserved)
        self.slots[Int(frameID & 0xFF)] = slot
        slot.reset(packetCount: packetCount, reserving: reserved)
        slot.frameID = frameID
        slot.isKeyFrame = isKeyFrame
        slot.captureTime = captureTime
        slot.encodedByteCount = bytes.count
        var delayExtension: UInt16?
        if self.announcedDelay != self.playoutDelay {
            self.announcedDelay = self.playoutDelay
            delayExtension = UInt16(clamping: self.playoutDelay.inNanoseconds / 1_000_000)
        }
        try self.cipher.begin(frameID: frameID)
        var header = RTPPacketHeader(
            marker: false, payloadType: self.parameters.payloadType, sequenceNumber: 0,
            rtpTimestamp: self.parameters.rtpTimestamp(of: captureTime, epoch: self.epoch),
            ssrc: self.parameters.ssrc, isKeyFrame: isKeyFrame, frameID: UInt8(truncatingIfNeeded: frameID),
            packetID: 0, maxPacketID: UInt16(packetCount - 1),
            referenceFrameID: UInt8(truncatingIfNeeded: isKeyFrame ? frameID : frameID - 1))
        for index in 0..<packetCount {
            header.marker = index == packetCount - 1
            header.packetID = UInt16(index)
            header.playoutDelay = index == 0 ? delayExtension : nil
            let packet = slot.packet(index)
            let headerBytes = header.write(to: packet)
            let start = index * self.parameters.maximumPayloadSize
            let count = min(self.parameters.maximumPayloadSize, bytes.count - start)
            if count > 0, let base = bytes.baseAddress {
                self.cipher.apply(base + start, to: packet + headerBytes, count: count)
            }
            slot.setLength(headerBytes + max(count, 0), ofPacket: index)
        }
        self.lastEnqueued = frameID
        self.lastCaptureTime = captureTime
        // The frame taken for encoding is out (a key frame, or a delta if it was lost on the way).
        self.keyFrameAwaited = false
        if isKeyFrame {
            self.lastKeyFrameID = frameID
            self.keyFramesSent += 1
        }
        self.framesSent += 1
    }

    // MARK: Sending

    /// Whether a resend or a new packet waits.
    var hasPacketsToSend: Bool {
        self.resendCount > 0 || self.nextNewPacket() != nil
    }

    /// Whether this stream is due an SR: with every new frame until the
    /// round-trip time is known — Open Screen's sender_impl.cc:232-234, so a
    /// receiver that drops packet 0 until its first SR (receiver_impl.cc:323-329)
    /// gets one soon even if the first is lost — then every 500 ms.
    func needsSenderReport(at now: HostTime) -> Bool {
        guard let last = self.lastReportAt else { return self.lastEnqueued >= 0 }
        if self.roundTripTime == nil && self.lastEnqueued > self.lastReportedFrame { return true }
        return last.duration(to: now) >= Self.senderReportInterval
    }

    /// Writes this stream's SR for `now` into `bytes` (cleared first) and records it for RTT.
    func writeSenderReport(at now: HostTime, into bytes: inout [UInt8]) {
        let ntp = NTPTime.from(now)
        bytes.removeAll(keepingCapacity: true)
        RTCPWriter.appendSenderReport(
            SenderReport(
                ssrc: self.parameters.ssrc, ntpTimestamp: ntp,
                rtpTimestamp: self.parameters.rtpTimestamp(of: now, epoch: self.epoch),
                packetCount: self.packetsSent, octetCount: self.octetsSent),
            to: &bytes)
        if self.reportHistory.count == 8 { self.reportHistory.removeFirst() }
        self.reportHistory.append((NTPTime.compact(ntp), now))
        self.lastReportAt = now
        self.lastReportedFrame = self.lastEnqueued
    }

    /// Sends the next packet — a requested resend first, else the next new
    /// one — through `transmit`; returns whether one was sent.
    func sendNextPacket(at now: HostTime, transmit: (UnsafeRawBufferPointer) -> Void) -> Bool {
        while self.resendCount > 0 {
            let reference = self.resend[self.resendHead]
            self.resendHead = (self.resendHead + 1) % Self.resendQueueCapacity
            self.resendCount -= 1
            guard let slot = self.slot(reference.frameID), !slot.isAcknowledged,
                reference.packetID < slot.packetCount
            else { continue }
            slot.resendQueued[reference.packetID] = false
            self.transmit(slot, reference.packetID, at: now, transmit: transmit)
            self.retransmittedPackets += 1
            return true
        }
        guard let next = self.nextNewPacket(), let slot = self.slot(next.frameID) else { return false }
        self.transmit(slot, next.packetID, at: now, transmit: transmit)
        self.cursor = PacketReference(frameID: next.frameID, packetID: next.packetID + 1)
        return true
    }

    private func nextNewPacket() -> PacketReference? {
        var reference = self.cursor
        while reference.frameID <= self.lastEnqueued {
            if let slot = self.slot(reference.frameID), !slot.isAcknowledged, reference.packetID < slot.packetCount {
                return reference
            }
            reference = PacketReference(frameID: reference.frameID + 1, packetID: 0)
        }
        return nil
    }

    private func transmit(
        _ slot: SentFrame, _ packetID: Int, at now: HostTime, transmit: (UnsafeRawBufferPointer) -> Void
    ) {
        RTPPacketHeader.rewriteSequenceNumber(self.sequenceNumber, in: slot.packet(packetID))
        self.sequenceNumber &+= 1
        let bytes = slot.bytes(ofPacket: packetID)
        transmit(bytes)
        slot.lastSent[packetID] = now.nanoseconds
        self.packetsSent &+= 1
        self.octetsSent &+= UInt32(truncatingIfNeeded: bytes.count)
    }

    private func queueResend(_ slot: SentFrame, _ packetID: Int) {
        guard !slot.resendQueued[packetID] else { return }
        if self.resendCount == Self.resendQueueCapacity {
            self.resendHead = (self.resendHead + 1) % Self.resendQueueCapacity
            self.resendCount -= 1
        }
        self.resend[(self.resendHead + self.resendCount) % Self.resendQueueCapacity] = PacketReference(
            frameID: slot.frameID, packetID: packetID)
        self.resendCount += 1
        slot.resendQueued[packetID] = true
    }

    /// Kickstart: the newest frame is unacknowledged and all of it went out
    /// more than max(targetDelay/20, 2·RTT) ago — resend its last packet, in
    /// case the packets the receiver needed to notice it were all lost.
    ///
    /// Open Screen's sender skips this once the receiver has NACKed the
    /// frame (ChooseKickstartPacket, sender_impl.cc:667-705), since its
    /// receiver NACKs every missing packet, a newest frame's tail included.
    /// Chromium's receiver does not NACK past the highest packet it has of
    /// the newest frame (media/cast FrameBuffer::GetMissingPackets), nor does
    /// the emulator: with Open Screen's rule, a newest frame missing a middle
    /// packet and its tail, and no frame after it (the in-flight limit
    /// refusing new ones), would never complete. So, as Chromium's sender
    /// (frame_sender_impl.cc ResendCheck), this kickstarts whenever the newest
    /// frame is unacknowledged: with 5 % loss about a third of resends are
    /// such kickstarts of frames already complete but not yet ACKed.
    func kickstartIfStalled(at now: HostTime) {
        guard let slot = self.slot(self.lastEnqueued), !slot.isAcknowledged, self.nextNewPacket() == nil else { return }
        let last = slot.packetCount - 1
        let sent = slot.lastSent[last]
        guard sent > 0 else { return }
        let wait = max(self.playoutDelay.inNanoseconds / 20, (self.roundTripTime?.inNanoseconds ?? 0) * 2)
        if now.nanoseconds - sent >= wait {
            self.queueResend(slot, last)
        }
    }

    // MARK: Feedback

    /// Applies one compound RTCP packet for this stream; tells `acknowledged`
    /// the bytes of each frame it newly acknowledged, the time they count
    /// at for the bandwidth estimator, and the frame's capture time.
    func apply(_ compound: RTCPCompound, arrival: HostTime, acknowledged: (Int, HostTime, HostTime) -> Void) {
        // Only this stream's receiver's XR moves the staleness watermark
        // (Open Screen compound_rtcp_parser.cc:172-184, :417-418).
        if let time = compound.receiverReferenceTime,
            compound.receiverReferenceTimeAuthor == self.parameters.receiverSSRC
        {
            guard time >= self.newestReferenceTime else { return }
            self.newestReferenceTime = time
        }
        if let block = compound.receiverReport?.block, block.sourceSSRC == self.parameters.ssrc {
            self.updateRoundTripTime(block, arrival: arrival)
        }
        if compound.pictureLossSSRC == self.parameters.ssrc, self.parameters.kind == .video,
            self.lastKeyFrameID <= self.checkpoint, !self.keyFrameAwaited
        {
            self.keyFrameRequested = true
        }
        guard let feedback = compound.castFeedback, feedback.senderSSRC == self.parameters.ssrc,
            self.lastEnqueued >= 0
        else { return }
        let checkpoint = FrameID.expand(feedback.checkpointFrameID, atOrBefore: self.lastEnqueued)
        guard checkpoint >= self.checkpoint else { return }
        let ackTime = arrival.advanced(by: .zero - (self.roundTripTime ?? .zero))
        var id = self.checkpoint + 1
        while id <= checkpoint {
            self.acknowledge(id, at: ackTime, acknowledged)
            id += 1
        }
        self.checkpoint = checkpoint
        for (octet, bits) in feedback.ackBits.enumerated() where bits != 0 {
            for bit in 0..<8 where bits & (1 << bit) != 0 {
                let frame = checkpoint + 2 + Int64(8 * octet + bit)
                if frame <= self.lastEnqueued { self.acknowledge(frame, at: ackTime, acknowledged) }
            }
        }
        let recent = arrival.nanoseconds - (self.roundTripTime ?? .zero).inNanoseconds
        for loss in feedback.lossFields {
            let frame = FrameID.expand(loss.frameID, after: checkpoint)
            guard frame <= self.lastEnqueued, let slot = self.slot(frame), !slot.isAcknowledged else { continue }
            if loss.packetID == LossField.wholeFrame {
                for packet in 0..<slot.packetCount { self.resendIfStale(slot, packet, recent: recent) }
                continue
            }
            for offset in 0...8 where offset == 0 || loss.bitmask & (1 << (offset - 1)) != 0 {
                self.resendIfStale(slot, Int(loss.packetID) + offset, recent: recent)
            }
        }
    }

    /// Queues a NACKed packet unless it was never sent (it is on its way)
    /// or was sent after `recent` (the NACK predates that send).
    private func resendIfStale(_ slot: SentFrame, _ packet: Int, recent: Int64) {
        guard packet < slot.packetCount, slot.lastSent[packet] > 0, slot.lastSent[packet] <= recent else { return }
        self.queueResend(slot, packet)
    }

    private func acknowledge(_ frameID: Int64, at time: HostTime, _ acknowledged: (Int, HostTime, HostTime) -> Void) {
        guard let slot = self.slot(frameID), !slot.isAcknowledged else { return }
        slot.isAcknowledged = true
        self.framesAcknowledged += 1
        acknowledged(slot.encodedByteCount, time, slot.captureTime)
        self.slots[Int(frameID & 0xFF)] = nil
        self.spareSlots.append(slot)
    }

    private func updateRoundTripTime(_ block: ReportBlock, arrival: HostTime) {
        guard let sent = self.reportHistory.last(where: { $0.lsr == block.lastSenderReport }) else { return }
        let delay = NTPTime.duration(compact: block.delaySinceLastSenderReport)
        let sample = max(sent.sentAt.duration(to: arrival) - delay, Self.shortestRoundTrip)
        guard sample <= self.playoutDelay else { return }
        if let current = self.roundTripTime {
            self.roundTripTime = Duration(nanoseconds: (current.inNanoseconds * 7 + sample.inNanoseconds) / 8)
        } else {
            self.roundTripTime = sample
            self.roundTripSeconds.reserveCapacity(Self.roundTripWindow + 1)
        }
        let second = arrival.nanoseconds / 1_000_000_000
        if let last = self.roundTripSeconds.last, last.second == second {
            self.roundTripSeconds[self.roundTripSeconds.count - 1].shortest = min(last.shortest, sample)
        } else {
            self.roundTripSeconds.append((second, sample))
        }
        self.roundTripSeconds.removeAll { $0.second <= second - Int64(Self.roundTripWindow) }
        var shortest = sample
        for entry in self.roundTripSeconds { shortest = min(shortest, entry.shortest) }
        self.minimumRoundTripTime = shortest
    }

    /// Whether every frame handed out is acknowledged and the newest one's
    /// playout time (its capture time plus the playout delay) has come at `now`.
    func hasPlayedOut(at now: HostTime) -> Bool {
        guard let captured = self.lastCaptureTime else { return true }
        return self.checkpoint >= self.lastEnqueued && captured.advanced(by: self.playoutDelay) <= now
    }

    private func slot(_ frameID: Int64) -> SentFrame? {
        guard frameID >= 0, let slot = self.slots[Int(frameID & 0xFF)], slot.frameID == frameID else { return nil }
        return slot
    }
}
