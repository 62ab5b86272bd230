/// The settings of a `VideoEncoder`: VP8 or VP9.
///
/// The fixed part follows Docs/spec/cast-streaming.md §5 — realtime deadline,
/// constant bitrate, error resilient, no frame dropping inside the encoder,
/// key frames only on demand, every delta frame referencing the one before —
/// and is not configurable; what is configurable is here.
public struct VideoEncoderConfiguration: Sendable, Hashable {
    /// VP8 or VP9.
    public var codec: VideoCodec
    /// Frame width in pixels.
    public var width: Int
    /// Frame height in pixels.
    public var height: Int
    /// Frames per second the app intends to send; used for rate control and frame durations.
    public var frameRate: Int
    /// Target bitrate, bits per second; changeable later with `VideoEncoder.setBitrate(_:)`.
    public var bitrate: Int
    /// Encoder threads (1…16); more threads split the frame into token partitions.
    public var threadCount: Int
    /// libvpx speed, 4 (better pictures) … 16 (faster). Fixed, so encoding
    /// is repeatable. VP9's scale ends at 9: it encodes at this speed + 2, at most 9.
    public var speed: Int

    /// Creates a configuration. Defaults: 30 fps, 4 Mbit/s, one thread per two cores (at least 1, at most 4), speed 6.
    public init(
        codec: VideoCodec = .vp8,
        width: Int,
        height: Int,
        frameRate: Int = 30,
        bitrate: Int = 4_000_000,
        threadCount: Int? = nil,
        speed: Int = 6
    ) {
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.threadCount = threadCount ?? 1
        self.speed = speed
    }

    /// Quantizer range (libvpx's 0…63 scale): 4 keeps the best quality
    /// spending sane; 63 lets CBR hold low bitrates on hard pictures.
    package static let quantizerRange: ClosedRange<UInt32> = 4...63
    /// Rate-control buffer model, milliseconds (initial, optimal, size), as realtime WebRTC/Cast senders use.
    package static let bufferMilliseconds: (initial: Int, optimal: Int, size: Int) = (500, 600, 1_000)
    /// CBR undershoot / overshoot allowance, percent of target.
    package static let undershootPercent: UInt32 = 100
    package static let overshootPercent: UInt32 = 15
    /// Accepted bitrates, bits per second.
    package static let bitrateRange = 50_000...100_000_000
    /// Accepted frame rates.
    package static let frameRateRange = 1...120

    package func validated() throws(CastRemoteDisplayError) -> Self {
        _ = try PixelLayout(format: .i420, width: self.width, height: self.height)
        func check(_ condition: Bool, _ message: String) throws(CastRemoteDisplayError) {
            if !condition { throw CastRemoteDisplayError(.invalidConfiguration, message) }
        }
        try check(
            Self.frameRateRange.contains(self.frameRate),
            "frame rate \(self.frameRate) is outside \(Self.frameRateRange)")
        try check(
            Self.bitrateRange.contains(self.bitrate), "bitrate \(self.bitrate) bit/s is outside \(Self.bitrateRange)")
        try check((1...16).contains(self.threadCount), "thread count \(self.threadCount) is outside 1…16")
        try check((4...16).contains(self.speed), "speed \(self.speed) is outside 4…16")
        return self
    }
}
