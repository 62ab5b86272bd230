import COpenSSL

/// A stream's AES key and IV mask: 16 random bytes each, fresh for every
/// stream of every session (Docs/spec/cast-streaming.md §1).
@_spi(Receiver) public struct StreamKey: Sendable, Hashable {
    /// The AES-128 key.
    @_spi(Receiver) public var key: [UInt8]
    /// XORed into every frame's nonce.
    @_spi(Receiver) public var ivMask: [UInt8]

    /// A key from given bytes (16 each), for receivers and test vectors.
    @_spi(Receiver) public init?(key: [UInt8], ivMask: [UInt8]) {
        guard key.count == 16, ivMask.count == 16 else { return nil }
        self.key = key
        self.ivMask = ivMask
    }

    /// A key from the 32 hex characters each the OFFER carries.
    @_spi(Receiver) public init?(hexKey: String, hexIVMask: String) {
        guard let key = Hex.decode(hexKey), let mask = Hex.decode(hexIVMask) else { return nil }
        self.init(key: key, ivMask: mask)
    }

    /// Fresh random key and mask from OpenSSL's CSPRNG.
    @_spi(Receiver) public static func random() throws(CastRemoteDisplayError) -> StreamKey {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard FrameCipher.initialized, RAND_bytes(&bytes, 32) == 1 else {
            throw CastRemoteDisplayError(.cryptoFailure, "OpenSSL's random generator failed")
        }
        return StreamKey(key: Array(bytes[0..<16]), ivMask: Array(bytes[16..<32]))!
    }
}

/// AES-128-CTR over one frame at a time, the Cast Streaming frame
/// encryption (Docs/spec/cast-streaming.md §3): the initial counter block is
/// the IV mask XOR the frame id (big-endian, bytes 8…11). CTR is symmetric,
/// so the same object decrypts.
///
/// One OpenSSL context, reused for every frame; ``begin(frameID:)`` then any
/// number of ``apply(_:to:count:)`` calls that continue the key stream, so a
/// frame can be encrypted slice by slice straight into its packets.
///
/// Not thread-safe: one owner (a stream's sender or receiver) at a time.
@_spi(Receiver) public final class FrameCipher {
    private let ivMask: [UInt8]
    private let context: OpaquePointer
    private var nonce = [UInt8](repeating: 0, count: 16)

    /// libcrypto set up once, before its first use here, without its exit-time cleanup.
    static let initialized = copenssl_init_without_atexit() == 1

    @_spi(Receiver) public init(_ key: StreamKey) throws(CastRemoteDisplayError) {
        guard Self.initialized, let context = EVP_CIPHER_CTX_new() else {
            throw CastRemoteDisplayError(.cryptoFailure, "OpenSSL could not allocate a cipher context")
        }
        self.context = context
        self.ivMask = key.ivMask
        // The cipher and key are set once; each frame sets only its counter
        // block. Setting the cipher again per frame makes OpenSSL 3 fetch it
        // and reallocate the context's state: two allocations a frame.
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), nil, key.key, nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw CastRemoteDisplayError(.cryptoFailure, "OpenSSL refused the AES-128-CTR key")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(self.context)
    }

    /// Starts the key stream for `frameID` (its low 32 bits count).
    @_spi(Receiver) public func begin(frameID: Int64) throws(CastRemoteDisplayError) {
        let truncated = UInt32(truncatingIfNeeded: frameID)
        for index in 0..<16 {
            var byte: UInt8 = 0
            if (8..<12).contains(index) {
                byte = UInt8(truncatingIfNeeded: truncated >> (8 * (11 - UInt32(index))))
            }
            self.nonce[index] = byte ^ self.ivMask[index]
        }
        guard EVP_EncryptInit_ex(self.context, nil, nil, nil, self.nonce) == 1 else {
            throw CastRemoteDisplayError(.cryptoFailure, "OpenSSL refused the frame's counter block")
        }
    }

    /// XORs the next `count` bytes of key stream over `input` into `output`
    /// (they may be the same memory).
    @_spi(Receiver) public func apply(_ input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        var written: Int32 = 0
        // CTR never fails on a started context with valid pointers.
        _ = EVP_EncryptUpdate(
            self.context, output.assumingMemoryBound(to: UInt8.self), &written,
            input.assumingMemoryBound(to: UInt8.self), Int32(count))
    }

    /// `bytes` encrypted (or decrypted) as frame `frameID`; allocates, for receivers and tests.
    @_spi(Receiver) public func crypt(_ bytes: [UInt8], frameID: Int64) throws(CastRemoteDisplayError) -> [UInt8] {
        try self.begin(frameID: frameID)
        var output = [UInt8](repeating: 0, count: bytes.count)
        bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { output in
                if let source = input.baseAddress, let target = output.baseAddress {
                    self.apply(source, to: target, count: input.count)
                }
            }
        }
        return output
    }
}

/// Lowercase hexadecimal, as the OFFER carries keys.
@_spi(Receiver) public enum Hex {
    /// `bytes` as lowercase hex digits.
    @_spi(Receiver) public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of a hex string, or `nil` for odd lengths or other characters.
    @_spi(Receiver) public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = Self.value(characters[index]), let low = Self.value(characters[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
