/// The video codecs a Remote Display session can send, named as the OFFER
/// names them (`codecName`, Open Screen message_fields.cc:21-27).
public enum VideoCodec: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// VP8: what every Cast receiver decodes.
    case vp8
    /// VP9: better pictures at the same bitrate, more encoding work; libvpx
    /// tuned for screen content, as Chrome's mirroring does (Chromium
    /// media/cast/encoding/vpx_encoder.cc: `VP9E_SET_TUNE_CONTENT`).
    case vp9
    /// H.264 Constrained Baseline through OpenH264: what TVs and displays
    /// with Cast built in decode in hardware when they take no VP9; one of
    /// the four codecs Open Screen's receiver names as every receiver's
    /// (cast/streaming/constants.h), its OFFER `codecName` "h264".
    case h264
    /// AV1 through libaom's realtime mode tuned for screen content: the
    /// fewest bits for the picture, the most encoding work; Open Screen's
    /// receiver prefers it to H.264 (../shared/peers.md), a Google TV Streamer
    /// decodes it. Its OFFER `codecName` is "av1".
    case av1

    public var description: String { self == .h264 ? "H.264" : self.rawValue.uppercased() }

    /// The codecs a comma-separated list names, in its order (`vp9,vp8`,
    /// `h264, av1`; letter case and spaces aside); `nil` when a name is not
    /// a codec, one is named twice, or there is none.
    public static func list(_ text: String) -> [VideoCodec]? {
        let names = text.split(separator: ",").map { $0.filter { $0 != " " }.lowercased() }
        let codecs = names.compactMap(VideoCodec.init(rawValue:))
        guard !codecs.isEmpty, codecs.count == names.count, Set(codecs).count == codecs.count else { return nil }
        return codecs
    }

    /// The OFFER's `codecParameter`: Chrome's VP9 profile 0 string, level
    /// 4.0 up to 1080p30 and 4.1 above (GetCodecParameterString); nothing for VP8.
    func codecParameter(resolution: RemoteDisplayConfiguration.Resolution, frameRate: Int) -> String? {
        guard self == .vp9 else { return nil }
        return resolution.width * resolution.height * frameRate > 1_920 * 1_080 * 30 ? "vp09.00.41.08" : "vp09.00.40.08"
    }
}
