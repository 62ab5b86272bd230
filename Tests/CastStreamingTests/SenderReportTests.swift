import Testing

@_spi(Receiver) @testable import CastStreaming

/// SR (PT 200) as SenderReport.swift draws it.
@Suite(.timeLimit(.minutes(3))) struct SenderReportTests {
    @Test func itIsWrittenAtItsOffsetsAndReadBack() throws {
        let report = SenderReport(
            ssrc: 0x0102_0304, ntpTimestamp: 0x1112_1314_1516_1718, rtpTimestamp: 0x2122_2324, packetCount: 0x3132_3334,
            octetCount: 0x4142_4344)
        var bytes: [UInt8] = []
        RTCPWriter.appendSenderReport(report, to: &bytes)
        #expect(
            bytes
                == hex(
                    "80 c8 0006  01020304  11121314 15161718  21222324  31323334  41424344"))
        #expect(bytes.withUnsafeBytes { RTCPCompound.parse($0) }?.senderReport == report)
        // One word short: the whole datagram is dropped.
        var short = Array(bytes.dropLast(4))
        short[3] = 5
        #expect(short.withUnsafeBytes { RTCPCompound.parse($0) } == nil)
    }
}
