import Testing

@_spi(Receiver) @testable import CastStreaming

/// Compound RTCP packets as the receiver sends them (Docs/spec/cast-streaming.md §4).
@Suite(.timeLimit(.minutes(3))) struct RTCPCompoundTests {
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
