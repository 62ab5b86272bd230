import Foundation

/// What ffprobe says of a media file: its container, duration, tags and
/// streams — what deciding whether a device plays it needs.
///
/// Made from the JSON of `ffprobe -print_format json -show_format
/// -show_streams` (``init(ffprobeJSON:)``), or by `MediaTools.probe(_:timeout:)`.
public struct ProbedMedia: Sendable, Hashable {
    /// One stream of the file.
    public struct Stream: Sendable, Hashable {
        /// What a stream carries.
        public enum Kind: String, Sendable, Hashable {
            /// Pictures.
            case video
            /// Sound.
            case audio
            /// Subtitles or captions.
            case subtitle
            /// Anything else (data, attachments).
            case other
        }

        /// The stream's index in the file (ffmpeg's `-map 0:INDEX`).
        public var index: Int
        /// What it carries.
        public var kind: Kind
        /// ffmpeg's codec name: `h264`, `hevc`, `vp9`, `av1`, `aac`, `ac3`, `opus`…
        public var codec: String
        /// The codec's profile as ffprobe names it (`High`, `Main 10`, `LC`, `Profile 2`), if any.
        public var profile: String?
        /// The codec's level as ffprobe gives it (H.264: 41 for 4.1; HEVC: 30 × the level), if any.
        public var level: Int?
        /// The pixel format (`yuv420p`, `yuv420p10le`), for video.
        public var pixelFormat: String?
        /// The picture's width and height, for video.
        public var width: Int?
        /// The picture's height, for video.
        public var height: Int?
        /// The channel count, for audio.
        public var channels: Int?
        /// Whether it is a still picture attached to the file (a cover), not video.
        public var isAttachedPicture: Bool
        /// Whether the file marks it as the default stream of its kind.
        public var isDefault: Bool
        /// Its language tag (ISO 639-2, as the file says), if any.
        public var language: String?
        /// Its title tag ("English (SDH)", "Commentary"), if any.
        public var title: String?

        /// The subtitle codecs that are text, which ffmpeg turns into WebVTT;
        /// the others (PGS, DVD and DVB subtitles) are pictures.
        public static let textSubtitleCodecs: Set<String> = [
            "subrip", "srt", "ass", "ssa", "webvtt", "mov_text", "text",
        ]

        /// Whether it is a subtitle stream of text (SubRip, ASS/SSA, WebVTT, mov_text).
        public var isTextSubtitle: Bool { self.kind == .subtitle && Self.textSubtitleCodecs.contains(self.codec) }

        /// Its name for people among the streams of its kind: its title,
        /// else its language (BCP 47), else "Sound `number`" (1 for the first).
        public func name(number: Int) -> String {
            self.title ?? self.language.map(MediaLanguage.bcp47)
                ?? "\(self.kind == .audio ? "Sound" : "Track") \(number)"
        }

        /// Creates a stream description.
        public init(
            index: Int, kind: Kind, codec: String, profile: String? = nil, level: Int? = nil,
            pixelFormat: String? = nil, width: Int? = nil, height: Int? = nil, channels: Int? = nil,
            isAttachedPicture: Bool = false, isDefault: Bool = false, language: String? = nil, title: String? = nil
        ) {
            self.index = index
            self.kind = kind
            self.codec = codec
            self.profile = profile
            self.level = level
            self.pixelFormat = pixelFormat
            self.width = width
            self.height = height
            self.channels = channels
            self.isAttachedPicture = isAttachedPicture
            self.isDefault = isDefault
            self.language = language
            self.title = title
        }
    }

    /// ffmpeg's names for the container, comma-separated as ffprobe gives
    /// them: `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mp3`, `avi`…
    public var container: String
    /// How long it plays, when the file says.
    public var duration: Duration?
    /// The timestamp its media starts at, seconds (ffprobe's `start_time`):
    /// 0 for most files, 1.4 for many MPEG-TS recordings, where ffmpeg
    /// keeping the file's own timestamps has its cuts.
    public var startTime: Double = 0
    /// Its title, artist and album tags, when present.
    public var title: String?
    /// The artist tag.
    public var artist: String?
    /// The album tag.
    public var album: String?
    /// Its streams, in file order.
    public var streams: [Stream]

    /// Creates a description.
    public init(
        container: String, duration: Duration? = nil, title: String? = nil, artist: String? = nil,
        album: String? = nil, streams: [Stream]
    ) {
        self.container = container
        self.duration = duration
        self.title = title
        self.artist = artist
        self.album = album
        self.streams = streams
    }

    /// The video stream a player shows: the default one, else the first
    /// (cover pictures are not video).
    public var video: Stream? { Self.preferred(self.streams.filter { $0.kind == .video && !$0.isAttachedPicture }) }

    /// The audio stream a player plays: the default one, else the first.
    public var audio: Stream? { Self.preferred(self.streams.filter { $0.kind == .audio }) }

    private static func preferred(_ streams: [Stream]) -> Stream? {
        streams.first { $0.isDefault } ?? streams.first
    }

    /// The most JSON read from ffprobe: real files describe themselves in a
    /// few kilobytes; this bounds what a hostile file can make us hold.
    public static let maximumJSONSize = 4 << 20
    /// The most streams kept.
    public static let maximumStreams = 512

    /// Reads ffprobe's JSON (`-print_format json -show_format -show_streams`).
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/probeFailed`` when it
    ///   is not that JSON, is larger than ``maximumJSONSize``, or names no container.
    public init(ffprobeJSON json: [UInt8]) throws(MediaServerError) {
        guard json.count <= Self.maximumJSONSize else {
            throw MediaServerError(.probeFailed, "ffprobe said more than \(Self.maximumJSONSize) bytes")
        }
        let output: FFprobeOutput
        do {
            output = try JSONDecoder().decode(FFprobeOutput.self, from: Data(json))
        } catch {
            throw MediaServerError(.probeFailed, "ffprobe's output is not the JSON expected", cause: error)
        }
        guard let format = output.format, let container = format.formatName, !container.isEmpty else {
            throw MediaServerError(.probeFailed, "ffprobe names no container")
        }
        self.container = container
        if let text = format.duration, let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds < 1e9 {
            self.duration = .milliseconds(Int64(seconds * 1_000))
        } else {
            self.duration = nil
        }
        if let text = format.startTime, let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e9 {
            self.startTime = seconds
        }
        self.title = format.tag("title")
        self.artist = format.tag("artist")
        self.album = format.tag("album")
        self.streams = (output.streams ?? []).prefix(Self.maximumStreams).compactMap { stream in
            guard let index = stream.index, let type = stream.codecType else { return nil }
            return Stream(
                index: index, kind: Stream.Kind(rawValue: type) ?? .other, codec: stream.codecName ?? "unknown",
                profile: stream.profile, level: stream.level, pixelFormat: stream.pixelFormat, width: stream.width,
                height: stream.height, channels: stream.channels,
                isAttachedPicture: stream.disposition?["attached_pic"] == 1,
                isDefault: stream.disposition?["default"] == 1, language: stream.tag("language"),
                title: stream.tag("title"))
        }
    }
}

/// The part of ffprobe's JSON read.
private struct FFprobeOutput: Decodable {
    struct Format: Decodable, Tagged {
        var formatName: String?
        var duration: String?
        var startTime: String?
        var tags: [String: String]?

        enum CodingKeys: String, CodingKey {
            case formatName = "format_name"
            case startTime = "start_time"
            case duration, tags
        }
    }

    struct Stream: Decodable, Tagged {
        var index: Int?
        var codecType: String?
        var codecName: String?
        var profile: String?
        var level: Int?
        var pixelFormat: String?
        var width: Int?
        var height: Int?
        var channels: Int?
        var disposition: [String: Int]?
        var tags: [String: String]?

        enum CodingKeys: String, CodingKey {
            case codecType = "codec_type"
            case codecName = "codec_name"
            case pixelFormat = "pix_fmt"
            case index, profile, level, width, height, channels, disposition, tags
        }
    }

    var format: Format?
    var streams: [Stream]?
}

/// Tags, whose keys files spell in either case (`title` in MP4, `TITLE` in Matroska).
private protocol Tagged {
    var tags: [String: String]? { get }
}

extension Tagged {
    func tag(_ name: String) -> String? {
        guard let tags else { return nil }
        let value = tags[name] ?? tags.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed?.isEmpty == false ? trimmed : nil
    }
}
