/// Bounds and fixed values of the encode side, with their reasons.
package enum RemoteDisplayLimits {
    /// Largest frame side accepted, pixels. Cast receivers decode up to 4K;
    /// VP8 itself stops at 16383.
    package static let maximumDimension = 4_096
    /// Opus always runs at 48 kHz here: the Cast receiver expects it and it
    /// is Opus's native rate, so no resampling happens inside the codec.
    package static let opusSampleRate = 48_000
    /// Audio frames are 10 ms (Docs/spec/cast-streaming.md §5): 480 samples at 48 kHz.
    package static let opusFrameSamples = 480
    /// Packet buffer for one Opus frame, bytes: more than
    /// ``largestOpusPacketBytes``; 4000 is libopus's recommended
    /// `max_data_bytes`, so the encoder never fails for lack of room.
    package static let maximumOpusPacketBytes = 4_000
    /// The largest packet of one 10 ms Opus frame: a TOC byte and a frame
    /// of at most 1275 bytes (RFC 6716 §3.2.1).
    package static let largestOpusPacketBytes = 1_276
    /// Audio sample rates AudioInput accepts, Hz.
    package static let sourceSampleRates = 8_000...192_000
    /// libvpx timebase: microseconds, so host-time pts map without rounding loss that matters.
    package static let vpxTimebaseDenominator: Int32 = 1_000_000
    /// Frames in flight at most (Docs/spec/cast-streaming.md §5: 120 unacked frames) plus a few being built.
    package static let encodedFramePoolCapacity = 128
}
