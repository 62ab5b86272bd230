/// What a kind of Cast device decodes: the one table of codecs, profiles,
/// levels and sizes that decides whether a local file is served as it is
/// or converted.
///
/// Sources, read 2026-11:
/// - developers.google.com/cast/docs/media, "Video codecs" (per device),
///   "Audio codecs" and "Media container formats" (MP2T, MP3, MP4, OGG,
///   WAV, WebM). Matroska is not among the containers; AC-3 and E-AC-3 are
///   passed through to an HDMI sink only where the TV takes them, so they
///   are converted like any codec a device cannot decode.
/// - The model names are those devices advertise in mDNS (`md`), as
///   pychromecast's and VLC's Chromecast modules match them (VLC's
///   merge request 7608 tells the original Chromecast by "Chromecast").
///   Every Chromecast generation before Ultra says "Chromecast": the table
///   takes the oldest's limits for it, since a file that fails to play is
///   worse than one converted without need.
public struct CastMediaSupport: Sendable, Hashable {
    /// The limits of one video codec.
    public struct VideoLimits: Sendable, Hashable {
        /// The profiles decoded, as ffprobe names them; empty: any.
        public var profiles: Set<String>
        /// The highest level, as ffprobe gives it (H.264: 41 for 4.1; HEVC and VP9: 30 × level); `nil`: any.
        public var maximumLevel: Int?
        /// The largest picture's long side, in pixels (its width in landscape).
        public var maximumLongSide: Int
        /// The largest picture's short side.
        public var maximumShortSide: Int
        /// The pixel formats decoded.
        public var pixelFormats: Set<String>

        /// Creates limits.
        public init(
            profiles: Set<String>, maximumLevel: Int?, maximumSize: (long: Int, short: Int), pixelFormats: Set<String>
        ) {
            self.profiles = profiles
            self.maximumLevel = maximumLevel
            self.maximumLongSide = maximumSize.long
            self.maximumShortSide = maximumSize.short
            self.pixelFormats = pixelFormats
        }
    }

    /// The device kind, for messages ("Chromecast (1st–3rd gen.)").
    public var name: String
    /// Video codecs (ffmpeg's names) and their limits.
    public var video: [String: VideoLimits]
    /// Audio codecs decoded (ffmpeg's names).
    public var audio: Set<String>

    /// Creates a table row.
    public init(name: String, video: [String: VideoLimits], audio: Set<String>) {
        self.name = name
        self.video = video
        self.audio = audio
    }

    private static let eightBit: Set<String> = ["yuv420p", "yuvj420p"]
    private static let eightAndTenBit: Set<String> = ["yuv420p", "yuvj420p", "yuv420p10le"]
    private static let h264Profiles: Set<String> = ["Constrained Baseline", "Baseline", "Main", "High"]
    private static let fullHD = (long: 1_920, short: 1_080)
    private static let ultraHD = (long: 3_840, short: 2_160)
    /// HEVC Main and Main 10 up to level 5.1 (4K/60): Ultra and the Google TV devices.
    private static let hevc4K = VideoLimits(
        profiles: ["Main", "Main 10"], maximumLevel: 153, maximumSize: ultraHD, pixelFormats: eightAndTenBit)
    /// VP9 profiles 0 and 2 up to level 5.1 (4K/60): Ultra and the Google TV devices.
    private static let vp94K = VideoLimits(
        profiles: ["Profile 0", "Profile 2"], maximumLevel: nil, maximumSize: ultraHD, pixelFormats: eightAndTenBit)

    /// "Audio codecs" on the Cast media page: HE-AAC and LC-AAC, MP3, Opus,
    /// Vorbis, FLAC, WAV (LPCM). The same on every device.
    public static let audioCodecs: Set<String> = [
        "aac", "mp3", "opus", "vorbis", "flac", "pcm_s16le", "pcm_s24le", "pcm_u8",
    ]

    /// Chromecast 1st and 2nd generation (the oldest limits, taken for every
    /// device that says "Chromecast"): H.264 High up to level 4.1
    /// (1080p/30), VP8 up to 1080p/30.
    public static let chromecast = CastMediaSupport(
        name: "Chromecast",
        video: [
            "h264": VideoLimits(
                profiles: h264Profiles, maximumLevel: 41, maximumSize: fullHD, pixelFormats: eightBit),
            "vp8": VideoLimits(profiles: [], maximumLevel: nil, maximumSize: fullHD, pixelFormats: eightBit),
        ],
        audio: audioCodecs)

    /// Chromecast Ultra: H.264 High up to 4.2, VP8 up to 4K/30, HEVC Main
    /// and Main 10 up to level 5.1, VP9 profiles 0 and 2 up to level 5.1.
    public static let chromecastUltra = CastMediaSupport(
        name: "Chromecast Ultra",
        video: [
            "h264": VideoLimits(
                profiles: h264Profiles, maximumLevel: 42, maximumSize: fullHD, pixelFormats: eightBit),
            "vp8": VideoLimits(profiles: [], maximumLevel: nil, maximumSize: ultraHD, pixelFormats: eightBit),
            "hevc": hevc4K, "vp9": vp94K,
        ],
        audio: audioCodecs)

    /// Chromecast with Google TV (4K): H.264 High up to 5.1, HEVC Main and
    /// Main 10 up to 5.1, VP9 profiles 0 and 2 up to 5.1. Its HD model
    /// ("Chromecast HD") the same at 1080p, with AV1 Main.
    public static let chromecastGoogleTV = CastMediaSupport(
        name: "Chromecast with Google TV",
        video: [
            "h264": VideoLimits(
                profiles: h264Profiles, maximumLevel: 51, maximumSize: ultraHD, pixelFormats: eightBit),
            "vp8": VideoLimits(profiles: [], maximumLevel: nil, maximumSize: fullHD, pixelFormats: eightBit),
            "hevc": hevc4K, "vp9": vp94K,
        ],
        audio: audioCodecs)

    /// Google TV Streamer: as Chromecast with Google TV, and AV1 Main up to level 5.1.
    public static let googleTVStreamer: CastMediaSupport = {
        var support = chromecastGoogleTV
        support.name = "Google TV Streamer"
        support.video["av1"] = VideoLimits(
            profiles: ["Main"], maximumLevel: nil, maximumSize: ultraHD, pixelFormats: eightAndTenBit)
        return support
    }()

    /// Nest Hub and Nest Hub Max: H.264 High up to 4.1 at 720p, VP8 and VP9 profile 0 at 720p.
    public static let nestHub = CastMediaSupport(
        name: "Nest Hub",
        video: [
            "h264": VideoLimits(
                profiles: h264Profiles, maximumLevel: 41, maximumSize: (1_280, 720), pixelFormats: eightBit),
            "vp8": VideoLimits(profiles: [], maximumLevel: nil, maximumSize: (1_280, 720), pixelFormats: eightBit),
            "vp9": VideoLimits(
                profiles: ["Profile 0"], maximumLevel: nil, maximumSize: (1_280, 720), pixelFormats: eightBit),
        ],
        audio: audioCodecs)

    /// Speakers (Google Home, Nest Audio, Nest Mini, Chromecast Audio): sound only.
    public static let speaker = CastMediaSupport(name: "Cast speaker", video: [:], audio: audioCodecs)

    /// The row for a device by the model name it advertises (`md`); a model
    /// the table does not know (TVs with Chromecast built-in) gets the oldest
    /// Chromecast's limits.
    public static func forModel(_ modelName: String?) -> CastMediaSupport {
        let model = (modelName ?? "").lowercased()
        switch true {
        case model == "chromecast ultra": return .chromecastUltra
        case model.contains("google tv streamer"): return .googleTVStreamer
        case model == "chromecast hd":
            var support = CastMediaSupport.chromecastGoogleTV
            support.name = "Chromecast with Google TV (HD)"
            for codec in support.video.keys {
                support.video[codec]?.maximumLongSide = fullHD.long
                support.video[codec]?.maximumShortSide = fullHD.short
            }
            support.video["av1"] = VideoLimits(
                profiles: ["Main"], maximumLevel: nil, maximumSize: fullHD, pixelFormats: eightAndTenBit)
            return support
        case model.contains("google tv"): return .chromecastGoogleTV
        case model.contains("nest hub"): return .nestHub
        case model.contains("google home") && !model.contains("hub"), model.contains("nest audio"),
            model.contains("nest mini"), model.contains("chromecast audio"), model.contains("speaker"):
            return .speaker
        default:
            var support = CastMediaSupport.chromecast
            if !model.isEmpty && model != "chromecast" { support.name = "\(modelName ?? "") (as a Chromecast)" }
            return support
        }
    }
}
