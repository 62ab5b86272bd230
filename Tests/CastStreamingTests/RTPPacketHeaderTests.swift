import Testing

@_spi(Receiver) @testable import CastStreaming

/// The RTP header of Cast Streaming, byte for byte (Docs/spec/cast-streaming.md §2).
@Suite(.timeLimit(.minutes(3))) struct RTPPacketHeaderTests {
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
}

private func bytes(of header: RTPPacketHeader) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: header.byteCount)
    bytes.withUnsafeMutableBytes { _ = header.write(to: $0.baseAddress!) }
    return bytes
}
