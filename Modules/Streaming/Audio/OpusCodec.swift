import COpus

/// The libopus encoder handle, its fixed input frame and packet buffer,
/// with every libopus status mapped to ``CastRemoteDisplayError`` in one place.
//
// @unchecked Sendable: the handle and buffers are mutable, but an `OpusCodec`
// belongs to exactly one noncopyable `OpusEncoder` and is only used from its
// `mutating` methods.
final class OpusCodec: @unchecked Sendable {
    private let handle: OpaquePointer
    let channelCount: Int
    /// One 10 ms frame of interleaved input, filled by the caller before `encodeInput`.
    let input: UnsafeMutablePointer<Float>
    private let packet: UnsafeMutablePointer<UInt8>
    /// Samples the encoder delays its output by.
    let lookaheadSamples: Int

    init(channelCount: Int, bitrate: Int) throws(CastRemoteDisplayError) {
        var status: Int32 = 0
        guard
            let handle = opus_encoder_create(
                Int32(RemoteDisplayLimits.opusSampleRate),
                Int32(channelCount),
                OPUS_APPLICATION_RESTRICTED_LOWDELAY,
                &status
            ), status == OPUS_OK
        else {
            throw Self.failure(status, "create an encoder")
        }
        self.handle = handle
        self.channelCount = channelCount
        var lookahead: Int32 = 0
        _ = copus_encoder_get_lookahead(handle, &lookahead)
        self.lookaheadSamples = Int(lookahead)
        self.input = .allocate(capacity: RemoteDisplayLimits.opusFrameSamples * channelCount)
        self.input.initialize(repeating: 0, count: RemoteDisplayLimits.opusFrameSamples * channelCount)
        self.packet = .allocate(capacity: RemoteDisplayLimits.maximumOpusPacketBytes)
        try self.setBitrate(bitrate)
    }

    deinit {
        opus_encoder_destroy(self.handle)
        self.input.deallocate()
        self.packet.deallocate()
    }

    func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        let status = copus_encoder_set_bitrate(self.handle, Int32(bitsPerSecond))
        guard status == OPUS_OK else { throw Self.failure(status, "set the bitrate to \(bitsPerSecond)") }
    }

    /// Encodes `input`; the returned bytes are valid until the next call.
    func encodeInput() throws(CastRemoteDisplayError) -> UnsafeRawBufferPointer {
        let length = opus_encode_float(
            self.handle,
            self.input,
            Int32(RemoteDisplayLimits.opusFrameSamples),
            self.packet,
            Int32(RemoteDisplayLimits.maximumOpusPacketBytes)
        )
        guard length > 0 else { throw Self.failure(length, "encode") }
        return UnsafeRawBufferPointer(start: self.packet, count: Int(length))
    }

    private static func failure(_ status: Int32, _ operation: String) -> CastRemoteDisplayError {
        CastRemoteDisplayError(
            .codecFailure,
            "libopus failed to \(operation)",
            cause: CastRemoteDisplayError.LibraryFailure(
                library: "libopus",
                status: status,
                detail: String(cString: opus_strerror(status))
            )
        )
    }
}
