/// The video encoders a ``RemoteDisplayChannel`` encodes pictures with.
///
/// Cast Streaming itself encodes sound only (Opus), so that a sound-only
/// app — speakers, a music player — links no video codec. `CastRemoteDisplay`
/// adds `VideoEncoders.standard` (VP8 and VP9 through libvpx, H.264 through
/// OpenH264, AV1 through libaom) and makes every `RemoteDisplayChannel()`
/// with them; a channel made with ``none`` sends sound alone.
public struct VideoEncoders: Sendable {
    /// Makes the encoder for a session's video stream: its codec, size, rate
    /// and bitrate from `configuration`, each picture fitted into `letterbox`
    /// when the receiver asked for one.
    package typealias Make =
        @Sendable (
            _ configuration: RemoteDisplayConfiguration, _ letterbox: VideoLetterbox?
        ) throws(CastRemoteDisplayError) -> any VideoFrameEncoding

    private let make: Make?
    private let probe: @Sendable () -> Bool

    /// Encoders made by `make`; `probe` says whether they work on this machine.
    package init(probe: @escaping @Sendable () -> Bool, make: @escaping Make) {
        self.probe = probe
        self.make = make
    }

    private init() {
        self.probe = { true }
        self.make = nil
    }

    /// No video encoder: sessions carry sound alone, and a configuration
    /// with video is refused with
    /// ``CastRemoteDisplayError/Code-swift.struct/codecFailure``.
    public static let none = VideoEncoders()

    /// Whether these encoders can encode video at all.
    public var encodesVideo: Bool { self.make != nil }

    /// Whether the encoders work on this machine (each encodes one tiny
    /// frame); always `true` for ``none``.
    package var isUsable: Bool { self.probe() }

    /// The encoder for one session's video stream.
    package func makeEncoder(configuration: RemoteDisplayConfiguration, letterbox: VideoLetterbox?)
        throws(CastRemoteDisplayError) -> any VideoFrameEncoding
    {
        guard let make = self.make else {
            throw CastRemoteDisplayError(
                .codecFailure, "this channel encodes no video; make it with CastRemoteDisplay's encoders")
        }
        return try make(configuration, letterbox)
    }
}

/// One session's video encoder: it takes each captured picture, fits it
/// into the session's letterbox and the size adaptation asks for, and
/// encodes it. Used by one thread at a time (the pipeline's encoder thread).
package protocol VideoFrameEncoding: AnyObject {
    /// Encodes `frame` at `bitrate` (`nil`: unchanged) and `size` (`nil`: the
    /// full size), as a key frame when `keyFrame` or after a size change.
    func encode(
        _ frame: consuming PixelBuffer, pts: HostTime, keyFrame: Bool, bitrate: Int?,
        size: RemoteDisplayConfiguration.Resolution?
    ) throws(CastRemoteDisplayError) -> EncodedFrame
}
