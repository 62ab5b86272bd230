import Testing

@_spi(Receiver) @testable import CastStreaming

/// PLI (PT 206, FMT 1) as PictureLossIndication.swift draws it.
@Suite(.timeLimit(.minutes(3))) struct PictureLossIndicationTests {
    @Test func itNamesTheMediaSSRCAtItsOffset() throws {
        var bytes: [UInt8] = []
        RTCPWriter.appendPictureLossIndication(senderSSRC: 0x0102_0304, mediaSSRC: 0x0506_0708, to: &bytes)
        #expect(bytes == hex("81 ce 0002  01020304  05060708"))
        #expect(bytes.withUnsafeBytes { RTCPCompound.parse($0) }?.pictureLossSSRC == 0x0506_0708)
        // Without the media SSRC: dropped.
        let short = hex("81 ce 0001  01020304")
        #expect(short.withUnsafeBytes { RTCPCompound.parse($0) } == nil)
    }
}
