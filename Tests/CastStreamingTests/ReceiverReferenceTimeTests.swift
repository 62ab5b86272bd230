import Testing

@_spi(Receiver) @testable import CastStreaming

/// XR with a receiver reference time block (BT 4) as ReceiverReferenceTime.swift draws it.
@Suite(.timeLimit(.minutes(3))) struct ReceiverReferenceTimeTests {
    @Test func itIsWrittenAtItsOffsetsAndReadBackAfterAnotherBlock() throws {
        var bytes: [UInt8] = []
        RTCPWriter.appendReceiverReferenceTime(ssrc: 0x0102_0304, ntp: 0x1112_1314_1516_1718, to: &bytes)
        #expect(bytes == hex("80 cf 0004  01020304  04 00 0002  11121314 15161718"))
        let compound = try #require(bytes.withUnsafeBytes { RTCPCompound.parse($0) })
        #expect(compound.receiverReferenceTime == 0x1112_1314_1516_1718)
        #expect(compound.receiverReferenceTimeAuthor == 0x0102_0304)

        // A DLRR block (BT 5, one sub-block) before it is skipped.
        let withDLRR = hex(
            "80 cf 0008  01020304  05 00 0003  aaaaaaaa bbbbbbbb cccccccc  04 00 0002  11121314 15161718")
        #expect(withDLRR.withUnsafeBytes { RTCPCompound.parse($0) }?.receiverReferenceTime == 0x1112_1314_1516_1718)
    }
}
