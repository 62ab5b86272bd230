import Testing

@_spi(Receiver) @testable import CastStreaming

/// Cast feedback (PT 206, FMT 15) as CastFeedback.swift draws it.
@Suite(.timeLimit(.minutes(3))) struct CastFeedbackTests {
    @Test func lossFieldsAndTheCST2BlockAreWrittenAtTheirOffsetsAndReadBack() throws {
        let feedback = CastFeedback(
            receiverSSRC: 0x0102_0304, senderSSRC: 0x0506_0708, checkpointFrameID: 0x10, playoutDelay: 400,
            lossFields: [LossField(frameID: 0x11, packetID: 0x0203, bitmask: 0x05)], feedbackCount: 9,
            ackBits: [0x81])
        var bytes: [UInt8] = []
        RTCPWriter.appendCastFeedback(feedback, to: &bytes)
        // CST2's bit vector is padded to 2 octets, so the block ends on a word.
        #expect(
            bytes
                == hex("8f ce 0007  01020304  05060708  43415354  10 01 0190  11 0203 05  43535432  09 02 8100"))
        var expected = feedback
        expected.ackBits = [0x81, 0x00]
        #expect(bytes.withUnsafeBytes { RTCPCompound.parse($0) }?.castFeedback == expected)
    }

    @Test func withoutCST2ThereIsNoFeedbackCount() throws {
        let feedback = CastFeedback(receiverSSRC: 1, senderSSRC: 2, checkpointFrameID: 3, playoutDelay: 100)
        var bytes: [UInt8] = []
        RTCPWriter.appendCastFeedback(feedback, to: &bytes)
        #expect(bytes == hex("8f ce 0004  00000001  00000002  43415354  03 00 0064"))
        #expect(bytes.withUnsafeBytes { RTCPCompound.parse($0) }?.castFeedback == feedback)
        // Another identifier than 'CAST', or more loss fields than the packet holds: dropped.
        var notCast = bytes
        notCast[12] = 0x58
        #expect(notCast.withUnsafeBytes { RTCPCompound.parse($0) } == nil)
        var tooMany = bytes
        tooMany[17] = 1
        #expect(tooMany.withUnsafeBytes { RTCPCompound.parse($0) } == nil)
    }
}
