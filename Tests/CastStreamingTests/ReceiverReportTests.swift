import Testing

@_spi(Receiver) @testable import CastStreaming

/// RR (PT 201) as ReceiverReport.swift draws it.
@Suite(.timeLimit(.minutes(3))) struct ReceiverReportTests {
    @Test func aReportWithItsBlockIsWrittenAtItsOffsetsAndReadBack() throws {
        let block = ReportBlock(
            sourceSSRC: 0x0A0B_0C0D, fractionLost: 0x20, cumulativeLost: 0x01_0203,
            extendedHighestSequence: 0x3031_3233,
            jitter: 0x4041_4243, lastSenderReport: 0x5051_5253, delaySinceLastSenderReport: 0x6061_6263)
        var bytes: [UInt8] = []
        RTCPWriter.appendReceiverReport(ssrc: 0x0102_0304, block: block, to: &bytes)
        #expect(
            bytes
                == hex("81 c9 0007  01020304  0a0b0c0d  20 010203  30313233  40414243  50515253  60616263"))
        let parsed = try #require(bytes.withUnsafeBytes { RTCPCompound.parse($0) }?.receiverReport)
        #expect(parsed == ReceiverReport(ssrc: 0x0102_0304, block: block))
    }

    @Test func aReportWithoutABlockIsOneWord() throws {
        var bytes: [UInt8] = []
        RTCPWriter.appendReceiverReport(ssrc: 7, block: nil, to: &bytes)
        #expect(bytes == hex("80 c9 0001  00000007"))
        #expect(bytes.withUnsafeBytes { RTCPCompound.parse($0) }?.receiverReport == ReceiverReport(ssrc: 7, block: nil))
        // A count of one with no room for the block: dropped.
        var lying = bytes
        lying[0] = 0x81
        #expect(lying.withUnsafeBytes { RTCPCompound.parse($0) } == nil)
    }
}
