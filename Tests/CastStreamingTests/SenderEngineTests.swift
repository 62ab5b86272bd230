import Testing

@_spi(Receiver) @testable import CastStreaming

/// The sender engine driven directly, with a test clock and a transmit
/// function that records what would go on the wire.
@Suite(.timeLimit(.minutes(3))) struct SenderEngineTests {
    final class Wire: @unchecked Sendable {
        // @unchecked Sendable: `datagrams` is appended to only by the engine's
        // transmit closure, which runs inside engine calls the test makes on
        // its own task, and read by that same task in between: never two threads.
        var datagrams: [[UInt8]] = []
        var media: [(header: RTPPacketHeader, bytes: [UInt8])] {
            self.datagrams.compactMap { datagram in
                datagram.withUnsafeBytes { RTCPPacketType.isRTCP($0) ? nil : RTPPacketHeader.parse($0) }
                    .map { ($0.header, datagram) }
            }
        }
    }

    let video = StreamParameters(
        kind: .video, ssrc: 500_001, receiverSSRC: 500_002, payloadType: 96, rtpTimebase: 90_000,
        key: StreamKey(key: Array(repeating: 1, count: 16), ivMask: Array(repeating: 2, count: 16))!)
    let start = HostTime(nanoseconds: 1_000_000_000)

    func makeEngine(_ wire: Wire) throws -> SenderEngine {
        try SenderEngine(
            streams: [self.video], epoch: self.start, playoutDelay: .milliseconds(400), bitrate: nil,
            transmit: { wire.datagrams.append(Array($0)) })
    }

    func at(_ milliseconds: Int) -> HostTime { self.start.advanced(by: .milliseconds(milliseconds)) }

    /// Enqueues `count` video frames of `byte` 33 ms apart from the start, the first a key frame.
    func enqueueFrames(_ count: Int, of byte: UInt8 = 1, into engine: SenderEngine) throws {
        let frame = [UInt8](repeating: byte, count: 100)
        for index in 0..<count {
            try frame.withUnsafeBytes { bytes in
                _ = try engine.enqueue(
                    bytes, kind: .video, isKeyFrame: index == 0, captureTime: self.at(33 * index),
                    now: self.at(33 * index))
            }
        }
    }

    @Test func packetsGoOutInBurstsOfTwentyOneEveryTenMilliseconds() throws {
        let wire = Wire()
        let engine = try self.makeEngine(wire)
        let frame = [UInt8](repeating: 0xAB, count: 70 * RTPPacketHeader.maximumPayloadSize)
        try frame.withUnsafeBytes { bytes in
            _ = try engine.enqueue(bytes, kind: .video, isKeyFrame: true, captureTime: self.at(0), now: self.at(0))
        }
        #expect(SenderEngine.burstSize == 21)
        // The first burst: the sender report first, then 20 packets.
        #expect(wire.datagrams.count == 21)
        #expect(wire.datagrams[0].withUnsafeBytes { RTCPCompound.parse($0) }?.senderReport?.ssrc == 500_001)
        _ = engine.tick(at: self.at(5))
        #expect(wire.datagrams.count == 21)  // same burst: nothing more
        var counts: [Int] = []
        for step in 1...4 {
            let before = wire.datagrams.count
            _ = engine.tick(at: self.at(10 * step))
            counts.append(wire.datagrams.count - before)
        }
        #expect(counts == [21, 21, 8, 0])
        let media = wire.media
        #expect(media.count == 70)
        #expect(media.map(\.header.packetID) == (0..<70).map(UInt16.init))
        #expect(media.last?.header.marker == true && media.dropFirst().allSatisfy { $0.header.maxPacketID == 69 })
        // The first packet of the first frame carries the playout delay.
        #expect(media.first?.header.playoutDelay == 400)
        #expect(media.dropFirst().allSatisfy { $0.header.playoutDelay == nil })
    }

    @Test func aNACKResendsThePacketWithANewSequenceNumber() throws {
        let wire = Wire()
        let engine = try self.makeEngine(wire)
        let frame = [UInt8](repeating: 7, count: 3 * RTPPacketHeader.maximumPayloadSize)
        try frame.withUnsafeBytes { bytes in
            _ = try engine.enqueue(bytes, kind: .video, isKeyFrame: true, captureTime: self.at(0), now: self.at(0))
        }
        let original = wire.media
        #expect(original.count == 3)
        // An RR echoing the first SR 20 ms later: RTT 20 ms.
        let report = try #require(wire.datagrams[0].withUnsafeBytes { RTCPCompound.parse($0) }?.senderReport)
        var receiverReport: [UInt8] = []
        RTCPWriter.appendReceiverReport(
            ssrc: 500_002,
            block: ReportBlock(
                sourceSSRC: 500_001, lastSenderReport: NTPTime.compact(report.ntpTimestamp),
                delaySinceLastSenderReport: 0),
            to: &receiverReport)
        receiverReport.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(20)) }
        #expect(engine.roundTripTime == .milliseconds(20))
        var feedback: [UInt8] = []
        RTCPWriter.appendCastFeedback(
            CastFeedback(
                receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 0xFF, playoutDelay: 400,
                lossFields: [LossField(frameID: 0, packetID: 1)]), to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(50)) }
        let resent = Array(wire.media.dropFirst(3))
        #expect(resent.count == 1)
        #expect(resent.first?.header.packetID == 1)
        #expect(resent.first?.header.sequenceNumber == original[2].header.sequenceNumber &+ 1)
        // Payload identical to the first send: only the sequence number changed.
        #expect(Array(resent[0].bytes[4...]) == Array(original[1].bytes[4...]))
        #expect(engine.counters(.video)?.retransmittedPackets == 1)
        // The same NACK 10 ms later predates the resend (sent within one RTT): ignored.
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(60)) }
        #expect(wire.media.count == 4)
        // Once a round trip has passed, a NACK resends again.
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(80)) }
        #expect(wire.media.count == 5)
    }

    /// The kickstart resends the newest frame's last packet after
    /// max(targetDelay/20, 2·RTT) while that frame is unacknowledged — even
    /// once the receiver has NACKed part of it, since a receiver that does not
    /// NACK a newest frame's tail (Chromium's, the emulator) would otherwise
    /// never get it; an acknowledgement stops it.
    @Test func theKickstartResendsTheNewestFramesTailUntilItIsAcknowledged() throws {
        let wire = Wire()
        let engine = try self.makeEngine(wire)
        let frame = [UInt8](repeating: 3, count: 3 * RTPPacketHeader.maximumPayloadSize)
        try frame.withUnsafeBytes { bytes in
            _ = try engine.enqueue(bytes, kind: .video, isKeyFrame: true, captureTime: self.at(0), now: self.at(0))
        }
        #expect(wire.media.count == 3)
        _ = engine.tick(at: self.at(19))
        #expect(wire.media.count == 3)  // 400 ms / 20 = 20 ms not yet passed
        _ = engine.tick(at: self.at(20))
        #expect(wire.media.map(\.header.packetID) == [0, 1, 2, 2])
        // The receiver NACKs packet 1 only: the tail goes again 20 ms after its last send all the same.
        var feedback: [UInt8] = []
        RTCPWriter.appendCastFeedback(
            CastFeedback(
                receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 0xFF, playoutDelay: 400,
                lossFields: [LossField(frameID: 0, packetID: 1)]), to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(25)) }
        #expect(wire.media.map(\.header.packetID) == [0, 1, 2, 2, 1])
        _ = engine.tick(at: self.at(39))
        #expect(wire.media.count == 5)
        _ = engine.tick(at: self.at(40))
        #expect(wire.media.map(\.header.packetID) == [0, 1, 2, 2, 1, 2])
        // Acknowledged: no more.
        feedback.removeAll()
        RTCPWriter.appendCastFeedback(
            CastFeedback(receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 0, playoutDelay: 400),
            to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(45)) }
        _ = engine.tick(at: self.at(100))
        #expect(wire.media.count == 6)
        #expect(engine.counters(.video)?.retransmittedPackets == 3)
    }

    @Test func acknowledgementsReleaseFramesAndTheInFlightLimitDrops() throws {
        let wire = Wire()
        let engine = try self.makeEngine(wire)
        try self.enqueueFrames(7, into: engine)
        let frame = [UInt8](repeating: 1, count: 100)
        // 7 frames span 198 ms of media; the next at 231 ms exceeds targetDelay/2 = 200 ms.
        #expect(engine.counters(.video)?.framesInFlight == 7)
        let refused = try frame.withUnsafeBytes { bytes in
            try engine.enqueue(bytes, kind: .video, isKeyFrame: false, captureTime: self.at(231), now: self.at(231))
        }
        #expect(refused == false)
        #expect(engine.counters(.video)?.framesDropped == 1)
        #expect(engine.takeKeyFrameRequest())  // a dropped video frame forces a key frame
        // Checkpoint 2 plus CST2 bits for frames 4 and 6 (bits 0 and 2 of octet 0).
        var feedback: [UInt8] = []
        RTCPWriter.appendCastFeedback(
            CastFeedback(
                receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 2, playoutDelay: 400,
                feedbackCount: 1, ackBits: [0b101]), to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(240)) }
        #expect(engine.counters(.video)?.framesAcknowledged == 5)
        #expect(engine.counters(.video)?.framesInFlight == 2)
        // A checkpoint moving backwards is ignored.
        feedback.removeAll()
        RTCPWriter.appendCastFeedback(
            CastFeedback(receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 0, playoutDelay: 400),
            to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(250)) }
        #expect(engine.counters(.video)?.framesAcknowledged == 5)
        // The key frame the drop forced goes out: frame 7, with 5 and 6 still in flight.
        let sent = try frame.withUnsafeBytes { bytes in
            try engine.enqueue(bytes, kind: .video, isKeyFrame: true, captureTime: self.at(255), now: self.at(255))
        }
        #expect(sent)
        var pictureLoss: [UInt8] = []
        RTCPWriter.appendPictureLossIndication(senderSSRC: 500_002, mediaSSRC: 500_001, to: &pictureLoss)
        // A PLI while that key frame is in flight past the checkpoint asks for nothing more.
        pictureLoss.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(256)) }
        #expect(!engine.takeKeyFrameRequest())
        // Once the receiver has it (checkpoint 7), a PLI asks for a key frame.
        feedback.removeAll()
        RTCPWriter.appendCastFeedback(
            CastFeedback(receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 7, playoutDelay: 400),
            to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(258)) }
        pictureLoss.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(260)) }
        #expect(engine.takeKeyFrameRequest())
        // The receiver repeats its PLI until the key frame arrives; while that key frame is
        // being encoded (taken, nothing enqueued since) the repeat forces no second one
        // (Open Screen's sender.cc; before, it did, and a loaded machine sent 3 key frames for 2).
        pictureLoss.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(265)) }
        #expect(!engine.takeKeyFrameRequest())
        // Garbage is counted and dropped.
        [UInt8](repeating: 0xFF, count: 12).withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(270)) }
        #expect(engine.malformedFeedback == 1)
    }

    /// What `playOut` waits for: every frame acknowledged and the newest one's playout time come.
    @Test func whatWasSentHasPlayedOutOnceAcknowledgedAndItsPlayoutTimeHasCome() throws {
        let wire = Wire()
        let engine = try self.makeEngine(wire)
        #expect(engine.hasPlayedOut(at: self.at(0)), "nothing sent, nothing to wait for")
        try self.enqueueFrames(3, into: engine)
        // Frame 2, captured at 66 ms, plays at 466 ms: not before, and not while unacknowledged.
        #expect(!engine.hasPlayedOut(at: self.at(500)))
        var feedback: [UInt8] = []
        RTCPWriter.appendCastFeedback(
            CastFeedback(receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 1, playoutDelay: 400),
            to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(100)) }
        #expect(!engine.hasPlayedOut(at: self.at(500)), "frame 2 is not acknowledged")
        feedback.removeAll()
        RTCPWriter.appendCastFeedback(
            CastFeedback(receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 2, playoutDelay: 400),
            to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(110)) }
        #expect(!engine.hasPlayedOut(at: self.at(465)))
        #expect(engine.hasPlayedOut(at: self.at(466)))
    }

    @Test func theBitrateStepsDownOnDropsAndUpOnlyWhenUsed() {
        var controller = BitrateController(minimum: 300_000, maximum: 4_000_000, initial: 4_000_000, audioBitrate: 0)
        #expect(controller.update(at: self.at(0), framesDropped: false, estimate: nil, bytesSent: 0) == nil)
        #expect(controller.update(at: self.at(100), framesDropped: true, estimate: nil, bytesSent: 0) == nil)
        #expect(controller.update(at: self.at(500), framesDropped: true, estimate: nil, bytesSent: 0) == 2_800_000)
        // Not using the rate: held.
        #expect(
            controller.update(at: self.at(1_000), framesDropped: false, estimate: nil, bytesSent: 10_000) == 2_800_000)
        // Using it: up ×1.1.
        #expect(
            controller.update(at: self.at(1_500), framesDropped: false, estimate: nil, bytesSent: 175_000) == 3_080_000)
        // Capped by the estimate's usable share: 0.8 × 2 Mbit/s.
        #expect(
            controller.update(at: self.at(2_000), framesDropped: false, estimate: 2_000_000, bytesSent: 200_000)
                == 1_600_000)
    }
}
