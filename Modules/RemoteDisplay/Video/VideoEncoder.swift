public import CastStreaming

/// A realtime video encoder configured as Cast Streaming expects: VP8 or
/// VP9 over libvpx, H.264 over OpenH264, AV1 over libaom.
///
/// Encode frames in capture order with ``encode(_:pts:)``; each call returns
/// one `EncodedFrame`. Key frames come only when asked for
/// (``requestKeyFrame()``, or the first frame); every delta frame references
/// only the frame before it, so a receiver that has frame *n* can decode
/// *n + 1*. The bitrate can change between frames without re-creating the encoder.
///
/// The encoder is noncopyable and its methods are `mutating`: one owner,
/// one thread at a time, no locks.
public struct VideoEncoder: ~Copyable, Sendable {
    private let codec: Engine
    /// The configuration in force (its bitrate follows ``setBitrate(_:)``).
    public private(set) var configuration: VideoEncoderConfiguration
    private let frames: EncodedFramePool
    /// I420 copy of an NV12 input, made on the first NV12 frame.
    private var conversion: PixelStorage?
    private var keyFramePending = true
    private var firstPTS: HostTime?
    private var lastTimestamp: Int64 = -1
    private let frameDuration: Duration
    /// The size the encoder was created with, the largest it can take.
    private let largestSize: (width: Int, height: Int)

    /// Creates an encoder.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.invalidConfiguration` for
    ///   values out of range, `CastRemoteDisplayError.Code.codecFailure`
    ///   if libvpx refuses the configuration.
    public init(configuration: VideoEncoderConfiguration) throws(CastRemoteDisplayError) {
        // Everything that can throw happens before the first stored property is set.
        let validated = try configuration.validated()
        let codec: Engine =
            switch validated.codec {
            case .h264: .h264(try OpenH264Codec(configuration: validated))
            case .av1: .av1(try AOMCodec(configuration: validated))
            case .vp8, .vp9: .vpx(try VPXCodec(configuration: validated))
            }
        self.configuration = validated
        self.codec = codec
        self.frameDuration = .microseconds(1_000_000 / configuration.frameRate)
        self.largestSize = (validated.width, validated.height)
        let expectedFrameBytes = configuration.bitrate / 8 / configuration.frameRate
        self.frames = EncodedFramePool(initialBytes: max(expectedFrameBytes * 4, 4_096))
    }

    /// Makes the next encoded frame a key frame.
    public mutating func requestKeyFrame() {
        self.keyFramePending = true
    }

    /// Changes the target bitrate from the next frame on.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.invalidConfiguration` when
    ///   out of range; the previous bitrate stays.
    public mutating func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        var updated = self.configuration
        updated.bitrate = bitsPerSecond
        _ = try updated.validated()
        try self.codec.setBitrate(bitsPerSecond)
        self.configuration = updated
    }

    /// Changes the frame size from the next frame on, without re-creating
    /// the encoder; the next frame is a key frame. Congestion adaptation
    /// uses it to send fewer pixels.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.invalidConfiguration`
    ///   for an odd size or one larger than the encoder was created with
    ///   (libvpx cannot grow past it); the previous size stays.
    public mutating func setResolution(width: Int, height: Int) throws(CastRemoteDisplayError) {
        guard width != self.configuration.width || height != self.configuration.height else { return }
        guard width >= 2, height >= 2, width % 2 == 0, height % 2 == 0, width <= self.largestSize.width,
            height <= self.largestSize.height
        else {
            throw CastRemoteDisplayError(
                .invalidConfiguration,
                "\(width)×\(height) is odd or larger than the encoder's \(self.largestSize.width)×\(self.largestSize.height)"
            )
        }
        try self.codec.setSize(width: width, height: height)
        self.configuration.width = width
        self.configuration.height = height
        self.conversion = nil
        self.keyFramePending = true
    }

    /// Encodes one frame.
    ///
    /// - Parameters:
    ///   - frame: I420 or NV12 at the configured size, any stride.
    ///   - pts: its capture time on the host clock.
    /// - Returns: the encoded frame; a key frame if one was requested.
    /// - Throws: `CastRemoteDisplayError.Code.frameFormatMismatch` for a
    ///   frame of another size, `CastRemoteDisplayError.Code.poolExhausted`
    ///   when 128 encoded frames are still held, `CastRemoteDisplayError.Code.codecFailure`
    ///   when libvpx fails. After a throw the next frame is a key frame.
    public mutating func encode(_ frame: borrowing PixelBuffer, pts: HostTime) throws(CastRemoteDisplayError)
        -> EncodedFrame
    {
        guard frame.width == self.configuration.width, frame.height == self.configuration.height else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch,
                "frame is \(frame.width)×\(frame.height); the encoder is configured for "
                    + "\(self.configuration.width)×\(self.configuration.height)"
            )
        }
        let isKeyFrame = self.keyFramePending
        let timestamp = self.timestamp(for: pts)
        do {
            // libvpx's VP8 takes I420 with one stride shared by U and V;
            // anything else goes through the encoder's own I420 copy.
            let direct = frame.format == .i420 && frame.bytesPerRow(ofPlane: 1) == frame.bytesPerRow(ofPlane: 2)
            let source = direct ? frame.storage : try self.convertedToI420(frame)
            let packet = try self.codec.encode(source, timestamp: timestamp, keyFrame: isKeyFrame)
            let encoded = try self.frames.makeFrame(
                copying: packet,
                isKeyFrame: isKeyFrame,
                pts: pts,
                duration: self.frameDuration
            )
            self.keyFramePending = false
            return encoded
        } catch {
            self.keyFramePending = true
            throw error
        }
    }

    /// Timestamps in the libvpx timebase (µs since the first frame), strictly increasing.
    private mutating func timestamp(for pts: HostTime) -> Int64 {
        let first = self.firstPTS ?? pts
        self.firstPTS = first
        let timestamp = max((pts.nanoseconds - first.nanoseconds) / 1_000, self.lastTimestamp + 1)
        self.lastTimestamp = timestamp
        return timestamp
    }

    /// Copies `frame` into the encoder's I420 scratch buffer (libyuv): NV12
    /// chroma is de-interleaved, I420 chroma re-strided.
    private mutating func convertedToI420(_ frame: borrowing PixelBuffer) throws(CastRemoteDisplayError)
        -> PixelStorage
    {
        let target: PixelStorage
        if let conversion = self.conversion {
            target = conversion
        } else {
            target = PixelStorage(layout: try PixelLayout(format: .i420, width: frame.width, height: frame.height))
            self.conversion = target
        }
        PictureConversion.copy(frame, toI420: target)
        return target
    }
}

/// The library behind a ``VideoEncoder``: each takes the same I420 frames
/// and answers the same three requests.
private enum Engine: Sendable {
    case vpx(VPXCodec)
    case h264(OpenH264Codec)
    case av1(AOMCodec)

    func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        switch self {
        case .vpx(let codec): try codec.setBitrate(bitsPerSecond)
        case .h264(let codec): try codec.setBitrate(bitsPerSecond)
        case .av1(let codec): try codec.setBitrate(bitsPerSecond)
        }
    }

    func setSize(width: Int, height: Int) throws(CastRemoteDisplayError) {
        switch self {
        case .vpx(let codec): try codec.setSize(width: width, height: height)
        case .h264(let codec): try codec.setSize(width: width, height: height)
        case .av1(let codec): try codec.setSize(width: width, height: height)
        }
    }

    func encode(_ storage: PixelStorage, timestamp: Int64, keyFrame: Bool) throws(CastRemoteDisplayError)
        -> UnsafeRawBufferPointer
    {
        switch self {
        case .vpx(let codec): try codec.encode(storage, timestamp: timestamp, keyFrame: keyFrame)
        case .h264(let codec): try codec.encode(storage, timestamp: timestamp, keyFrame: keyFrame)
        case .av1(let codec): try codec.encode(storage, timestamp: timestamp, keyFrame: keyFrame)
        }
    }
}
