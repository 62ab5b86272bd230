public import CastLogging
@_exported public import CastStreaming

extension VideoEncoders {
    /// VP8 and VP9 through libvpx, H.264 through OpenH264, AV1 through
    /// libaom, each configured as Cast Streaming expects (``VideoEncoder``),
    /// every picture fitted into the receiver's letterbox and scaled as
    /// congestion adaptation asks.
    public static let standard = VideoEncoders(
        probe: { standardEncodersWork },
        make: { configuration, letterbox throws(CastRemoteDisplayError) in
            try FittingVideoEncoder(configuration: configuration, letterbox: letterbox)
        })
}

extension RemoteDisplayChannel {
    /// Creates a channel that encodes video with `VideoEncoders.standard`,
    /// or `nil` when this machine cannot run Remote Display
    /// (``isRemoteDisplaySupported``), as the SDK's `-init` returns nil.
    /// The wait for an ANSWER and each session's first-frame deadline run on
    /// `clock` (tests pass a clock they advance themselves).
    public convenience init?(logger: CastLogger = .shared, clock: any Clock<Duration> = ContinuousClock()) {
        self.init(logger: logger, clock: clock, videoEncoders: .standard)
    }

    /// Whether this machine can run Remote Display: the VP8 and Opus
    /// encoders are present and work. Probed once (the first call encodes
    /// one tiny frame of each), then remembered; safe from any thread.
    public static var isRemoteDisplaySupported: Bool {
        standardEncodersWork && isOpusUsable
    }
}

/// Encodes one tiny VP8 frame; whether it worked.
private let standardEncodersWork: Bool = {
    do throws(CastRemoteDisplayError) {
        var video = try VideoEncoder(configuration: VideoEncoderConfiguration(width: 64, height: 64))
        let frame = try PixelBuffer(format: .i420, width: 64, height: 64)
        _ = try video.encode(frame, pts: .now)
        return true
    } catch {
        return false
    }
}()
