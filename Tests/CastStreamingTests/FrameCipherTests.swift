import Testing

@_spi(Receiver) @testable import CastStreaming

/// The frame cipher (AES-128-CTR, Docs/spec/cast-streaming.md §3) against its golden vector.
@Suite(.timeLimit(.minutes(3))) struct FrameCipherTests {
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
}
