import Testing

@_spi(Receiver) @testable import CastStreaming

/// 8-bit frame ids on the wire, expanded to the sender's 64-bit ones.
@Suite(.timeLimit(.minutes(3))) struct FrameIDTests {
    @Test func frameIDsExpandAcrossTheWrap() {
        #expect(FrameID.expand(0xFF, atOrBefore: 3) == -1)
        #expect(FrameID.expand(0x02, atOrBefore: 258) == 258)
        #expect(FrameID.expand(0xFE, atOrBefore: 258) == 254)
        #expect(FrameID.expand(0x03, after: 250) == 259)
        #expect(FrameID.expand(0xFB, after: 250) == 251)
        #expect(FrameID.expand(0x01, near: 255) == 257)
        #expect(FrameID.expand(0xFE, near: 257) == 254)
    }
}
