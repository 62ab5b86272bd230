import COpenSSL
import Testing

/// OpenSSL's libcrypto links and works: AES-128-CTR through EVP reproduces
/// the Cast Streaming frame-encryption golden vector (Docs/spec/cast-streaming.md §3).
@Suite(.timeLimit(.minutes(3))) struct AESCTRLinkTests {
    @Test func reproducesTheGoldenVector() throws {
        let key = hex("000102030405060708090a0b0c0d0e0f")
        let ivMask = hex("f0f1f2f3f4f5f6f7f8f9fafbfffffffe")
        let frameID: UInt64 = 0x12_3456_7890
        let plaintext = Array("The quick brown fox jumps over the lazy dog. 0123456789".utf8)

        // nonce = 0…0 with bytes 8…11 = big-endian low 32 bits of the frame id, then XOR the mask.
        var nonce = [UInt8](repeating: 0, count: 16)
        let truncated = UInt32(truncatingIfNeeded: frameID)
        nonce[8] = UInt8(truncated >> 24)
        nonce[9] = UInt8(truncated >> 16 & 0xFF)
        nonce[10] = UInt8(truncated >> 8 & 0xFF)
        nonce[11] = UInt8(truncated & 0xFF)
        nonce = zip(nonce, ivMask).map { $0 ^ $1 }
        #expect(nonce == hex("f0f1f2f3f4f5f6f7ccaf826bfffffffe"))

        let context = try #require(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        #expect(EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key, nonce) == 1)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var written: Int32 = 0
        #expect(EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)) == 1)
        #expect(Int(written) == plaintext.count)
        var tail = [UInt8](repeating: 0, count: 16)
        var tailWritten: Int32 = 0
        #expect(EVP_EncryptFinal_ex(context, &tail, &tailWritten) == 1)
        #expect(tailWritten == 0)  // CTR is a stream mode: nothing held back.
        #expect(
            ciphertext
                == hex(
                    "c42174bb0f6dfdf4379f9fb6e3844ca3a20f9809e476ee7125b59f83552c1552"
                        + "e83d8768590089c6dee21f5d87e49051e75edc03cf8c6a"
                )
        )
    }
}

/// Bytes from a hexadecimal string; test vectors only.
private func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}
