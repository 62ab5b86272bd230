public import Foundation

/// The video on a web page, as yt-dlp resolves it (`yt-dlp -J`): its title,
/// thumbnail, length and the formats the site offers, each a URL with its
/// container, codecs and size. ``bestFormat(for:)`` picks the one a device
/// plays. Read defensively: a field of the wrong type counts as absent,
/// formats without an http(s) URL are dropped, and the JSON is bounded.
public struct WebVideo: Sendable, Hashable {
    /// One way the site serves the video.
    public struct Format: Sendable, Hashable {
        /// yt-dlp's id for it.
        public var id: String
        /// Where it is fetched.
        public var url: URL
        /// The file extension (`mp4`, `webm`, `m4a`).
        public var fileExtension: String
        /// `http`, `https`, or `m3u8`/`m3u8_native` for HLS.
        public var transport: String
        /// The video codec (ffmpeg's name: `h264`, `vp9`, `hevc`, `av1`, `vp8`); `none` for sound alone;
        /// `nil` when the site does not say.
        public var videoCodec: String?
        /// The audio codec (`aac`, `opus`, `mp3`…); `none` for a picture alone; `nil` when unknown.
        public var audioCodec: String?
        /// The picture's height in pixels, when known.
        public var height: Int?
        /// The total bitrate, kbit/s, when known.
        public var bitrate: Double?
        /// The headers the site wants with each request (yt-dlp's
        /// `http_headers`: a User-Agent, a Referer, sometimes a Cookie).
        public var httpHeaders: [String: String] = [:]

        /// Whether it is an HLS playlist.
        public var isHLS: Bool { self.transport.hasPrefix("m3u8") }

        /// Its MIME type: HLS's, else what the extension says, else MP4's.
        public var contentType: String {
            if self.isHLS { return "application/vnd.apple.mpegurl" }
            return MediaContentType.guess(from: "format.\(self.fileExtension)") ?? "video/mp4"
        }
    }

    /// The page's URL.
    public var page: URL
    /// The video's title.
    public var title: String?
    /// A picture of it.
    public var thumbnailURL: URL?
    /// Its length, seconds, when known.
    public var duration: Double?
    /// Whether it is a live stream.
    public var isLive: Bool
    /// The formats offered, in yt-dlp's order (worst first).
    public var formats: [Format]

    /// The most formats read (a site lists a few dozen).
    public static let maximumFormats = 1_000

    /// Reads yt-dlp's JSON for `page`.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/unsupportedMedia``
    ///   when it is not that JSON, larger than ``ProbedMedia/maximumJSONSize``,
    ///   a playlist, or holds no format with an http(s) URL.
    public init(ytDlpJSON json: [UInt8], page: URL) throws(MediaServerError) {
        guard json.count <= ProbedMedia.maximumJSONSize,
            let decoded = try? JSONDecoder().decode(YtDlpInfo.self, from: Data(json))
        else {
            throw MediaServerError(.unsupportedMedia, "yt-dlp's answer for \(page.absoluteString) is not readable")
        }
        // A single video's own URL stands for its one format when it lists none.
        let listed = decoded.formats ?? [decoded.asFormat]
        self.page = page
        self.title = decoded.title
        self.thumbnailURL = decoded.thumbnail.flatMap(URL.init(string:))
        self.duration = decoded.duration
        self.isLive = decoded.isLive ?? false
        self.formats = listed.prefix(Self.maximumFormats).compactMap(\.format)
        guard !self.formats.isEmpty else {
            throw MediaServerError(.unsupportedMedia, "yt-dlp found no video Cast can fetch on \(page.absoluteString)")
        }
    }

    /// The format `device` plays best: picture and sound together (sound
    /// alone for a speaker), fetched over HTTP or HLS, in a container and codecs the device
    /// decodes — formats whose codecs the site does not name count after
    /// those it does — at the largest height within the device's limits,
    /// then the highest bitrate; `nil` when none fits.
    public func bestFormat(for device: CastMediaSupport) -> Format? {
        let wantsPicture = !device.video.isEmpty
        let fitting = self.formats.filter { format in
            // In a container Cast devices play (not Matroska, AVI or QuickTime), whatever its codecs.
            guard format.isHLS || MediaContentType.playableByCast.contains(format.contentType) else { return false }
            let video = format.videoCodec
            let audio = format.audioCodec
            if audio == "none" { return false }
            if let audio, !device.audio.contains(audio) { return false }
            guard wantsPicture else { return video == "none" }
            if video == "none" { return false }
            guard let video else { return true }
            guard let limits = device.video[video] else { return false }
            return (format.height ?? 0) <= limits.maximumShortSide
        }
        return fitting.max { lhs, rhs in
            let known = { (format: Format) in format.videoCodec != nil && format.audioCodec != nil }
            if known(lhs) != known(rhs) { return !known(lhs) }
            if (lhs.height ?? 0) != (rhs.height ?? 0) { return (lhs.height ?? 0) < (rhs.height ?? 0) }
            return (lhs.bitrate ?? 0) < (rhs.bitrate ?? 0)
        }
    }

    /// The format worth converting when none fits a device
    /// (``bestFormat(for:)`` is `nil`): picture and sound together (sound
    /// alone when no format has a picture), fetched over HTTP or HLS, the
    /// largest picture up to 1080 lines (a conversion of more costs more
    /// than a TV gains), then the highest bitrate.
    public var formatToConvert: Format? {
        let whole = self.formats.filter { $0.videoCodec != "none" && $0.audioCodec != "none" }
        let candidates = whole.isEmpty ? self.formats.filter { $0.audioCodec != "none" } : whole
        return candidates.max { lhs, rhs in
            let height = { (format: Format) in min(format.height ?? 0, 1_080) }
            if height(lhs) != height(rhs) { return height(lhs) < height(rhs) }
            return (lhs.bitrate ?? 0) < (rhs.bitrate ?? 0)
        }
    }

    /// A codec as yt-dlp names it (`avc1.64001F`, `vp09.00.40.08`, `mp4a.40.2`) in ffmpeg's words.
    static func codec(_ name: String?) -> String? {
        guard let name = name?.lowercased(), !name.isEmpty else { return nil }
        let prefixes: [(String, String)] = [
            ("none", "none"), ("avc", "h264"), ("h264", "h264"), ("vp09", "vp9"), ("vp9", "vp9"),
            ("vp08", "vp8"), ("vp8", "vp8"), ("hev", "hevc"), ("hvc", "hevc"), ("h265", "hevc"), ("av01", "av1"),
            ("av1", "av1"), ("mp4a", "aac"), ("aac", "aac"), ("opus", "opus"), ("vorbis", "vorbis"),
            ("mp3", "mp3"), ("flac", "flac"),
        ]
        return prefixes.first { name.hasPrefix($0.0) }?.1 ?? name
    }
}

/// What yt-dlp's `-J` JSON holds that is read: every field optional.
private struct YtDlpInfo: Decodable {
    struct Entry: Decodable {
        var formatID: String?
        var url: String?
        var ext: String?
        var proto: String?
        var vcodec: String?
        var acodec: String?
        var height: Double?
        var tbr: Double?
        var headers: [String: String]?

        enum CodingKeys: String, CodingKey {
            case formatID = "format_id"
            case url, ext
            case proto = "protocol"
            case vcodec, acodec, height, tbr
            case headers = "http_headers"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.formatID = container.lenient(.formatID)
            self.url = container.lenient(.url)
            self.ext = container.lenient(.ext)
            self.proto = container.lenient(.proto)
            self.vcodec = container.lenient(.vcodec)
            self.acodec = container.lenient(.acodec)
            self.height = container.lenient(.height)
            self.tbr = container.lenient(.tbr)
            self.headers = container.lenient(.headers)
        }

        init(url: String?, ext: String?, proto: String?, vcodec: String?, acodec: String?) {
            (self.url, self.ext, self.proto, self.vcodec, self.acodec) = (url, ext, proto, vcodec, acodec)
        }

        /// The format, when it has an http(s) URL and a transport a receiver fetches.
        var format: WebVideo.Format? {
            guard let text = self.url, let url = URL(string: text), ["http", "https"].contains(url.scheme ?? "")
            else { return nil }
            let transport = self.proto ?? url.scheme ?? "https"
            guard ["http", "https", "m3u8", "m3u8_native"].contains(transport) else { return nil }
            return WebVideo.Format(
                id: self.formatID ?? "0", url: url, fileExtension: self.ext ?? url.pathExtension,
                transport: transport, videoCodec: WebVideo.codec(self.vcodec), audioCodec: WebVideo.codec(self.acodec),
                height: self.height.flatMap { $0.isFinite && $0 >= 0 && $0 < 100_000 ? Int($0) : nil },
                bitrate: self.tbr.flatMap { $0.isFinite ? $0 : nil },
                // At most 32 headers of at most 4 KiB each: what ffmpeg will send is bounded.
                httpHeaders: (self.headers ?? [:]).filter { $0.key.utf8.count + $0.value.utf8.count <= 4_096 }
                    .prefix(32).reduce(into: [:]) { $0[$1.key] = $1.value })
        }
    }

    var title: String?
    var thumbnail: String?
    var duration: Double?
    var isLive: Bool?
    var formats: [Entry]?
    var asFormat: Entry

    enum CodingKeys: String, CodingKey {
        case title, thumbnail, duration
        case isLive = "is_live"
        case formats, url, ext
        case proto = "protocol"
        case vcodec, acodec
        case type = "_type"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let type: String = container.lenient(.type), type != "video" {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "a \(type), not one video")
        }
        self.title = container.lenient(.title)
        self.thumbnail = container.lenient(.thumbnail)
        self.duration = container.lenient(.duration)
        self.isLive = container.lenient(.isLive)
        self.formats = container.lenient(.formats)
        self.asFormat = Entry(
            url: container.lenient(.url), ext: container.lenient(.ext), proto: container.lenient(.proto),
            vcodec: container.lenient(.vcodec), acodec: container.lenient(.acodec))
    }
}

extension KeyedDecodingContainer {
    /// The value at `key`, or `nil` when it is absent or of another type:
    /// what a field of yt-dlp's JSON is read with.
    fileprivate func lenient<T: Decodable>(_ key: Key) -> T? {
        (try? self.decodeIfPresent(T.self, forKey: key)) ?? nil
    }
}
