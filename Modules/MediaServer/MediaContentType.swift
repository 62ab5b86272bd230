/// Content types by file extension: what the server sends as
/// `Content-Type` and what a LOAD names as `contentType` (the receiver
/// needs the two to agree). The media types are the ones Google Cast
/// receivers play (developers.google.com/cast/docs/media), plus the
/// containers ffmpeg can remux into them.
public enum MediaContentType {
    /// Extension (lower case, no dot) → content type.
    public static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "ts": "video/mp2t", "m2ts": "video/mp2t", "avi": "video/x-msvideo",
        "m3u8": "application/x-mpegURL", "mpd": "application/dash+xml",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "ogg": "audio/ogg", "oga": "audio/ogg",
        "opus": "audio/ogg", "flac": "audio/flac", "wav": "audio/wav", "weba": "audio/webm",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "bmp": "image/bmp", "vtt": "text/vtt", "srt": "application/x-subrip",
    ]

    /// The type of `name`'s extension (a path or a URL; query and fragment
    /// ignored), or `nil` when unknown.
    public static func guess(from name: String) -> String? {
        let path = name.split(separator: "?", maxSplits: 1).first?.split(separator: "#").first ?? ""
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return Self.byExtension[path[path.index(after: dot)...].lowercased()]
    }

    /// The containers Google Cast devices play, by content type: MP2T, MP3,
    /// MP4, Ogg, WAV, WebM, AAC and FLAC audio, the picture formats, and
    /// HLS and DASH manifests (developers.google.com/cast/docs/media,
    /// "Media containers", "Audio codecs", "Image formats"; FLAC and AAC
    /// from its Chromecast Audio / Google Home list). Matroska, AVI and
    /// QuickTime are not among them.
    public static let playableByCast: Set<String> = [
        "video/mp4", "video/webm", "video/mp2t", "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/flac",
        "audio/wav", "audio/webm", "image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp",
        "application/x-mpegURL", "application/dash+xml",
    ]

    /// Whether `name` is audio, video or a picture by its extension — what a
    /// folder is searched for.
    public static func isMedia(_ name: String) -> Bool {
        guard let type = Self.guess(from: name) else { return false }
        return type.hasPrefix("video/") || type.hasPrefix("audio/") || type.hasPrefix("image/")
    }
}
