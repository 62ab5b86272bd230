/// An Opus encoder as Cast Streaming uses it: 48 kHz, 10 ms frames (480
/// samples per channel), the low-delay application.
///
/// Each frame's `pts` is its first sample's capture time moved earlier by
/// the encoder's lookahead (Docs/spec/cast-streaming.md §5), so the decoded
/// sound lines up with video stamped from the same clock.
///
/// Noncopyable with `mutating` methods: one owner, one thread at a time.
public struct OpusEncoder: ~Copyable, Sendable {
    private let codec: OpusCodec
    private let frames: EncodedFramePool
    /// Channels, 1 or 2.
    public let channelCount: Int
    /// Target bitrate, bits per second.
    public private(set) var bitrate: Int

    /// Samples per channel in every frame: 480 (10 ms at 48 kHz).
    public static let frameSamples = RemoteDisplayLimits.opusFrameSamples
    /// Accepted bitrates, bits per second (libopus's range).
    public static let bitrateRange = 6_000...510_000
    private static let frameDuration: Duration = .milliseconds(10)

    /// Creates an encoder.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration`` for
    ///   channels other than 1 or 2 or a bitrate outside ``bitrateRange``.
    public init(channelCount: Int = 2, bitrate: Int = 128_000) throws(CastRemoteDisplayError) {
        guard channelCount == 1 || channelCount == 2 else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "Opus here encodes 1 or 2 channels, not \(channelCount)")
        }
        guard Self.bitrateRange.contains(bitrate) else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "Opus bitrate \(bitrate) is outside \(Self.bitrateRange)")
        }
        let codec = try OpusCodec(channelCount: channelCount, bitrate: bitrate)
        self.codec = codec
        self.channelCount = channelCount
        self.bitrate = bitrate
        // Every frame made now, each with room for the largest 10 ms packet:
        // frames are held until acknowledged, and a late acknowledgement
        // would otherwise make new ones (two allocations each) mid-stream,
        // as a packet larger than any before would grow one. 128 × 1276
        // bytes, some 160 KB.
        self.frames = EncodedFramePool(initialBytes: RemoteDisplayLimits.largestOpusPacketBytes, prefilled: true)
    }

    /// How far the encoder's output lags its input.
    public var lookahead: Duration {
        Duration(
            nanoseconds: Int64(self.codec.lookaheadSamples) * 1_000_000_000 / Int64(RemoteDisplayLimits.opusSampleRate))
    }

    /// Changes the bitrate from the next frame on.
    public mutating func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        guard Self.bitrateRange.contains(bitsPerSecond) else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "Opus bitrate \(bitsPerSecond) is outside \(Self.bitrateRange)")
        }
        try self.codec.setBitrate(bitsPerSecond)
        self.bitrate = bitsPerSecond
    }

    /// Encodes one 10 ms frame of interleaved samples.
    ///
    /// - Parameters:
    ///   - samples: exactly ``frameSamples`` × ``channelCount`` floats.
    ///   - pts: capture time of the first sample.
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` for another count.
    public mutating func encode(interleaved samples: [Float], pts: HostTime) throws(CastRemoteDisplayError)
        -> EncodedFrame
    {
        let expected = Self.frameSamples * self.channelCount
        guard samples.count == expected else {
            throw CastRemoteDisplayError(
                .audioFormatMismatch, "an Opus frame is \(expected) samples, got \(samples.count)")
        }
        _ = UnsafeMutableBufferPointer(start: self.codec.input, count: expected).update(fromContentsOf: samples)
        return try self.encodeInput(pts: pts)
    }

    /// Encodes one frame that `fill` writes into the input (interleaved);
    /// `fill` returns the first sample's capture time, or `nil` to encode nothing.
    mutating func encode(filling fill: (UnsafeMutablePointer<Float>) -> HostTime?) throws(CastRemoteDisplayError)
        -> EncodedFrame?
    {
        guard let pts = fill(self.codec.input) else { return nil }
        return try self.encodeInput(pts: pts)
    }

    private mutating func encodeInput(pts: HostTime) throws(CastRemoteDisplayError) -> EncodedFrame {
        let packet = try self.codec.encodeInput()
        return try self.frames.makeFrame(
            copying: packet,
            isKeyFrame: true,
            pts: pts.advanced(byFrames: -self.codec.lookaheadSamples, sampleRate: RemoteDisplayLimits.opusSampleRate),
            duration: Self.frameDuration
        )
    }
}
