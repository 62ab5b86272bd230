import Testing

@testable import CastRemoteDisplay

/// The wire formats of Cast Streaming, byte for byte (Docs/spec/cast-streaming.md §2–§4).
@Suite struct CastStreamingWireTests {
    @Test func rtpHeadersMatchTheCapturedExamples() throws {
        // Audio frame 0, the only packet: `80 e0 7681 00000000 000058b7 c0 00 0000 0000 00`.
        let audio = RTPPacketHeader(
            marker: true, payloadType: 96, sequenceNumber: 0x7681, rtpTimestamp: 0, ssrc: 0x58B7, isKeyFrame: true,
            frameID: 0, packetID: 0, maxPacketID: 0, referenceFrameID: 0)
        #expect(bytes(of: audio) == hex("80e0768100000000000058b7c00000000000 00"))
        // Video frame 0, packet 0 of 7: `80 64 ed06 00000000 0000c6e4 c0 00 0000 0006 00`.
        let video = RTPPacketHeader(
            marker: false, payloadType: 100, sequenceNumber: 0xED06, rtpTimestamp: 0, ssrc: 0xC6E4, isKeyFrame: true,
            frameID: 0, packetID: 0, maxPacketID: 6, referenceFrameID: 0)
        let written = bytes(of: video)
        #expect(written == hex("8064ed06000000000000c6e4c000000000 0600"))
        let parsed = try #require(written.withUnsafeBytes { RTPPacketHeader.parse($0) })
        #expect(parsed.header == video)
        #expect(parsed.payloadOffset == 19)
    }

    @Test func thePlayoutDelayExtensionRoundTrips() throws {
        let header = RTPPacketHeader(
            marker: false, payloadType: 96, sequenceNumber: 1, rtpTimestamp: 90_000, ssrc: 7, isKeyFrame: false,
            frameID: 5, packetID: 0, maxPacketID: 1, referenceFrameID: 4, playoutDelay: 800)
        let written = bytes(of: header)
        #expect(written.count == 23)
        #expect(written[12] == 0x41)  // R set, one extension
        #expect(Array(written[19..<23]) == [0x04, 0x02, 0x03, 0x20])  // type 1, size 2, 800 ms
        #expect(written.withUnsafeBytes { RTPPacketHeader.parse($0) }?.header == header)
    }

    @Test func frameEncryptionReproducesTheGoldenVector() throws {
        let key = try #require(
            StreamKey(hexKey: "000102030405060708090a0b0c0d0e0f", hexIVMask: "f0f1f2f3f4f5f6f7f8f9fafbfffffffe"))
        let cipher = try FrameCipher(key)
        let plaintext = Array("The quick brown fox jumps over the lazy dog. 0123456789".utf8)
        let ciphertext = try cipher.crypt(plaintext, frameID: 0x12_3456_7890)
        #expect(
            ciphertext
                == hex(
                    "c42174bb0f6dfdf4379f9fb6e3844ca3a20f9809e476ee7125b59f83552c1552"
                        + "e83d8768590089c6dee21f5d87e49051e75edc03cf8c6a"))
        #expect(try cipher.crypt(ciphertext, frameID: 0x12_3456_7890) == plaintext)
    }

    /// Host times and durations in whole nanoseconds, both signs: the concrete
    /// conversions the sender uses agree with the standard library's generic ones.
    @Test func durationsInNanosecondsAgreeWithTheStandardLibrary() {
        for nanoseconds: Int64 in [0, 1, 999_999_999, 1_000_000_000, 6_500_000, -1, -6_500_000, -2_000_000_001] {
            #expect(Duration(nanoseconds: nanoseconds) == .nanoseconds(nanoseconds), "\(nanoseconds)")
            #expect(Duration(nanoseconds: nanoseconds).inNanoseconds == nanoseconds, "\(nanoseconds)")
            let time = HostTime(nanoseconds: 5_000_000_000)
            #expect(time.duration(to: time.advanced(by: .nanoseconds(nanoseconds))) == .nanoseconds(nanoseconds))
        }
        #expect(
            HostTime(nanoseconds: 0).advanced(byFrames: -312, sampleRate: 48_000)
                == HostTime(nanoseconds: 0).advanced(by: .zero - .nanoseconds(6_500_000)))
    }

    @Test func frameIDsExpandAcrossTheWrap() {
        #expect(FrameID.expand(0xFF, atOrBefore: 3) == -1)
        #expect(FrameID.expand(0x02, atOrBefore: 258) == 258)
        #expect(FrameID.expand(0xFE, atOrBefore: 258) == 254)
        #expect(FrameID.expand(0x03, after: 250) == 259)
        #expect(FrameID.expand(0xFB, after: 250) == 251)
        #expect(FrameID.expand(0x01, near: 255) == 257)
        #expect(FrameID.expand(0xFE, near: 257) == 254)
    }

    @Test func aHandBuiltCompoundPacketParses() throws {
        var packet: [UInt8] = []
        // RR with one block: receiver SSRC 2, about SSRC 1, LSR 0x11223344, DLSR 0x00010000 (1 s).
        packet += hex("81c90007 00000002 00000001 05000003 0001ffff 00000000 11223344 00010000")
        // XR receiver reference time.
        packet += hex("80cf0004 00000002 04000002 00000005 80000000")
        // APP receiver log (PT 204): skipped.
        packet += hex("80cc0002 00000002 6c6f6773")
        // PLI for SSRC 1.
        packet += hex("81ce0002 00000002 00000001")
        // Cast feedback: checkpoint 0x02, 2 loss fields, delay 400 ms, then CST2 count 9 with 2 octets.
        packet += hex("8fce0008 00000002 00000001 43415354 02020190 03000502 04ffff00 43535432 0902 8101")
        let compound = try #require(packet.withUnsafeBytes { RTCPCompound.parse($0) })
        #expect(compound.receiverReport?.ssrc == 2)
        #expect(
            compound.receiverReport?.block
                == ReportBlock(
                    sourceSSRC: 1, fractionLost: 5, cumulativeLost: 3, extendedHighestSequence: 0x1FFFF,
                    lastSenderReport: 0x1122_3344, delaySinceLastSenderReport: 0x10000))
        #expect(compound.receiverReferenceTime == 0x0000_0005_8000_0000)
        #expect(compound.pictureLossSSRC == 1)
        let feedback = try #require(compound.castFeedback)
        #expect(feedback.checkpointFrameID == 2)
        #expect(feedback.playoutDelay == 400)
        #expect(
            feedback.lossFields == [
                LossField(frameID: 3, packetID: 5, bitmask: 0x02), LossField(frameID: 4, packetID: 0xFFFF),
            ])
        #expect(feedback.feedbackCount == 9)
        #expect(feedback.ackBits == [0x81, 0x01])
        // What the writer makes of it parses back the same.
        var rewritten: [UInt8] = []
        RTCPWriter.appendCastFeedback(feedback, to: &rewritten)
        #expect(rewritten.withUnsafeBytes { RTCPCompound.parse($0) }?.castFeedback == feedback)
    }

    /// Parsing datagram after datagram into one value (as the sender does,
    /// to reuse the feedback's arrays) reads each exactly as a fresh parse:
    /// nothing of an earlier packet survives into a later one.
    @Test func parsingIntoOneValueForgetsThePreviousPacket() throws {
        let datagrams = [
            // Loss fields and CST2 ACK bits.
            hex("8fce0008 00000002 00000001 43415354 02020190 03000502 04ffff00 43535432 0902 8101"),
            // Feedback without losses or CST2, after one with both.
            hex("8fce0003 00000002 00000001 43415354 05000190"),
            // No feedback at all: an RR only.
            hex("81c90007 00000002 00000001 05000003 0001ffff 00000000 11223344 00010000"),
            // Malformed (CAST block without its identifier), then a valid one again.
            hex("8fce0004 00000002 00000001 58585858 00000000"),
            hex("8fce0005 00000002 00000001 43415354 07010190 08000100"),
        ]
        var reused = RTCPCompound()
        for datagram in datagrams {
            let fresh = datagram.withUnsafeBytes { RTCPCompound.parse($0) }
            let parsed = datagram.withUnsafeBytes { RTCPCompound.parse($0, into: &reused) }
            #expect(parsed == (fresh != nil))
            if let fresh { #expect(reused == fresh) }
        }
        #expect(reused.castFeedback?.lossFields == [LossField(frameID: 8, packetID: 1, bitmask: 0)])
        #expect(reused.castFeedback?.ackBits == [])
    }

    @Test func truncatedAndGarbagePacketsAreDropped() {
        let valid = hex("81ce0002 00000002 00000001")
        for length in 0..<valid.count {
            #expect(Array(valid[..<length]).withUnsafeBytes { RTCPCompound.parse($0) } == nil)
        }
        // A length field running past the end, a wrong version, a CAST block without its identifier.
        #expect(hex("81ce00ff 00000002 00000001").withUnsafeBytes { RTCPCompound.parse($0) } == nil)
        #expect(hex("41ce0002 00000002 00000001").withUnsafeBytes { RTCPCompound.parse($0) } == nil)
        #expect(hex("8fce0004 00000002 00000001 58585858 00000000").withUnsafeBytes { RTCPCompound.parse($0) } == nil)
        // Random bytes never crash either parser.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let garbage = (0..<Int.random(in: 0...64, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            garbage.withUnsafeBytes { bytes in
                _ = RTCPCompound.parse(bytes)
                _ = RTPPacketHeader.parse(bytes)
            }
        }
    }
}

/// The sender engine driven directly, with a test clock and a transmit
/// function that records what would go on the wire.
@Suite struct SenderEngineTests {
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
        let frame = [UInt8](repeating: 1, count: 100)
        for index in 0..<7 {
            try frame.withUnsafeBytes { bytes in
                _ = try engine.enqueue(
                    bytes, kind: .video, isKeyFrame: index == 0, captureTime: self.at(33 * index),
                    now: self.at(33 * index))
            }
        }
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
        // A PLI asks for a key frame (none is in flight past the checkpoint).
        feedback.removeAll()
        RTCPWriter.appendPictureLossIndication(senderSSRC: 500_002, mediaSSRC: 500_001, to: &feedback)
        feedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(260)) }
        #expect(engine.takeKeyFrameRequest())
        // Garbage is counted and dropped.
        [UInt8](repeating: 0xFF, count: 12).withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(270)) }
        #expect(engine.malformedFeedback == 1)
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

/// The congestion ladder, driven by hand at 500 ms steps.
@Suite struct VideoAdaptationTests {
    let start = HostTime(nanoseconds: 5_000_000_000)
    func at(_ milliseconds: Int) -> HostTime { self.start.advanced(by: .milliseconds(milliseconds)) }
    static let hd = RemoteDisplayConfiguration.Resolution(width: 1_280, height: 720)

    @Test func theLadderLowersTheSizeThenTheFrameRate() {
        let ladder = VideoAdaptation(size: Self.hd, frameRate: 30, minimumBitrate: 300_000, enabled: true)
        #expect(ladder.levels.map(\.scale) == [1, 0.75, 0.5, 0.375, 0.375, 0.375, 0.375])
        #expect(ladder.levels.map(\.frameRate) == [30, 30, 30, 30, 20, 15, 10])
        #expect(ladder.levels.map { ladder.resolution(of: $0).width } == [1_280, 960, 640, 480, 480, 480, 480])
        #expect(ladder.resolution(of: ladder.levels[3]).height == 270)
        // Never narrower than 320: a 640-wide stream stops at half size.
        let small = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 640, height: 360), frameRate: 30,
            minimumBitrate: 300_000, enabled: true)
        #expect(small.levels.map(\.scale) == [1, 0.75, 0.5, 0.5, 0.5, 0.5])
        // Off: one level.
        #expect(
            VideoAdaptation(size: Self.hd, frameRate: 30, minimumBitrate: 300_000, enabled: false).levels.count == 1)
        // Odd sizes round down to even ones.
        let odd = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 1_366, height: 768), frameRate: 30,
            minimumBitrate: 300_000, enabled: true)
        #expect(odd.resolution(of: odd.levels[1]) == RemoteDisplayConfiguration.Resolution(width: 1_024, height: 576))
    }

    @Test func itStepsDownAfterASecondStarvedAndUpAfterThreeComfortable() {
        var changed = false
        var ladder = VideoAdaptation(size: Self.hd, frameRate: 30, minimumBitrate: 300_000, enabled: true)
        // 800 kbit/s at 720p30 is 0.029 bit per pixel: starved, but only a second of it steps down.
        changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(0))
        #expect(!changed)
        changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(500))
        #expect(!changed)
        changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(1_000))
        #expect(changed)
        #expect(ladder.index == 1)
        // 960×540 at 800 kbit/s is 0.051: held; no bandwidth known, no step up.
        for step in 3...12 {
            changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(step * 500))
            #expect(!changed)
        }
        // Plenty of bandwidth, and 2 Mbit/s at 720p is 0.072: up after 3 s, not before.
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(7_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(9_500))
        #expect(!changed)
        // A dropped frame restarts the wait.
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: true, at: self.at(9_800))
        #expect(!changed)
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(10_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(13_000))
        #expect(changed)
        #expect(ladder.index == 0)
    }

    @Test func dropsAtTheMinimumBitrateStepDownAndAFailedProbeWaitsLonger() {
        var changed = false
        // 640×360 at 300 kbit/s is 0.043 bit per pixel: not starved by the measure, but
        // frames drop at the minimum bitrate, so the path cannot carry even that.
        var ladder = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 640, height: 360), frameRate: 30,
            minimumBitrate: 300_000, enabled: true)
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(0))
        #expect(!changed)
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(1_000))
        #expect(changed)
        #expect(ladder.level == VideoAdaptation.Level(scale: 0.75, frameRate: 30))
        // Up after 3 s of comfort…
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(2_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(5_000))
        #expect(changed)
        // …undone within 10 s: the next probe waits twice as long.
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(5_500))
        #expect(!changed)
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(6_500))
        #expect(changed)
        #expect(ladder.upDelay == .seconds(6))
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(7_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(12_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(13_000))
        #expect(changed)
        // Frame rate, at the smallest size: 320×180 at 30 fps, then 20.
        var tiny = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 640, height: 360), frameRate: 30,
            minimumBitrate: 64_000, enabled: true)
        var time = 0
        while tiny.level.frameRate == 30 {
            _ = tiny.update(bitrate: 64_000, usable: nil, framesDropped: true, at: self.at(time))
            time += 500
        }
        #expect(tiny.level == VideoAdaptation.Level(scale: 0.5, frameRate: 20))
    }
}

private func bytes(of header: RTPPacketHeader) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: header.byteCount)
    bytes.withUnsafeMutableBytes { _ = header.write(to: $0.baseAddress!) }
    return bytes
}

/// Bytes from hex digits; spaces are ignored.
private func hex(_ text: String) -> [UInt8] {
    Hex.decode(text.replacingOccurrences(of: " ", with: "")) ?? []
}
