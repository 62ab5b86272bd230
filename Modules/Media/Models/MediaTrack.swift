public import CastChannels

/// A text, audio or video track of the media (`tracks[]`): the SDK's `GCKMediaTrack`.
public struct MediaTrack: Codable, Hashable, Sendable {
    /// A track's kind (`type`).
    public struct Kind: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Subtitles, captions and the like.
        public static let text = Kind(rawValue: "TEXT")
        /// An audio track.
        public static let audio = Kind(rawValue: "AUDIO")
        /// A video track.
        public static let video = Kind(rawValue: "VIDEO")
    }

    /// What a text track holds (`subtype`).
    public struct TextSubtype: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A translation of the dialogue.
        public static let subtitles = TextSubtype(rawValue: "SUBTITLES")
        /// A transcription with sound descriptions.
        public static let captions = TextSubtype(rawValue: "CAPTIONS")
        /// A description of the video, for the blind.
        public static let descriptions = TextSubtype(rawValue: "DESCRIPTIONS")
        /// Chapter titles.
        public static let chapters = TextSubtype(rawValue: "CHAPTERS")
        /// Data for scripts.
        public static let metadata = TextSubtype(rawValue: "METADATA")
    }

    /// The track's id, unique within the media.
    public var trackID: Int
    /// Text, audio or video.
    public var kind: Kind
    /// For text tracks, what they hold.
    public var subtype: TextSubtype?
    /// The track's URL or id.
    public var contentID: String?
    /// The track's MIME type (`text/vtt`).
    public var contentType: String?
    /// The language, an RFC 5646 tag.
    public var language: String?
    /// The name to show.
    public var name: String?
    /// App data.
    public var customData: JSONValue?

    /// Creates a track.
    public init(
        trackID: Int, kind: Kind, subtype: TextSubtype? = nil, contentID: String? = nil, contentType: String? = nil,
        language: String? = nil, name: String? = nil, customData: JSONValue? = nil
    ) {
        self.trackID = trackID
        self.kind = kind
        self.subtype = subtype
        self.contentID = contentID
        self.contentType = contentType
        self.language = language
        self.name = name
        self.customData = customData
    }

    enum CodingKeys: String, CodingKey {
        case trackID = "trackId"
        case kind = "type"
        case subtype
        case contentID = "trackContentId"
        case contentType = "trackContentType"
        case language, name, customData
    }
}
