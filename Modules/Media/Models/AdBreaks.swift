public import CastChannels

/// An ad break in the media (`breaks[]`): the SDK's `GCKAdBreakInfo`.
public struct AdBreakInfo: Codable, Hashable, Sendable {
    /// The break's id.
    public var id: String
    /// The clips the break plays, in order.
    public var breakClipIDs: [String]
    /// Where the break sits in the media, seconds (-1 for a post-roll).
    public var position: Double
    /// The break's length in seconds, if known.
    public var duration: Double?
    /// Whether the viewer has seen it.
    public var isWatched: Bool
    /// Whether the break is part of the media stream itself.
    public var isEmbedded: Bool?

    /// Creates a break.
    public init(
        id: String, breakClipIDs: [String], position: Double, duration: Double? = nil, isWatched: Bool = false,
        isEmbedded: Bool? = nil
    ) {
        self.id = id
        self.breakClipIDs = breakClipIDs
        self.position = position
        self.duration = duration
        self.isWatched = isWatched
        self.isEmbedded = isEmbedded
    }

    enum CodingKeys: String, CodingKey {
        case id
        case breakClipIDs = "breakClipIds"
        case position, duration, isWatched, isEmbedded
    }
}

/// One clip of an ad break (`breakClips[]`): the SDK's `GCKAdBreakClipInfo`.
public struct AdBreakClipInfo: Codable, Hashable, Sendable {
    /// The clip's id.
    public var id: String
    /// The clip's title.
    public var title: String?
    /// The clip's URL or id.
    public var contentID: String?
    /// The clip's URL, when it differs from the id.
    public var contentURL: String?
    /// The clip's MIME type.
    public var contentType: String?
    /// A poster image's URL.
    public var posterURL: String?
    /// The clip's length in seconds.
    public var duration: Double?
    /// Seconds into the clip after which it can be skipped; `nil` when it cannot be.
    public var whenSkippable: Double?
    /// Where a click on the ad leads.
    public var clickThroughURL: String?
    /// App data.
    public var customData: JSONValue?

    /// Creates a clip.
    public init(
        id: String, title: String? = nil, contentID: String? = nil, contentURL: String? = nil,
        contentType: String? = nil, posterURL: String? = nil, duration: Double? = nil, whenSkippable: Double? = nil,
        clickThroughURL: String? = nil, customData: JSONValue? = nil
    ) {
        self.id = id
        self.title = title
        self.contentID = contentID
        self.contentURL = contentURL
        self.contentType = contentType
        self.posterURL = posterURL
        self.duration = duration
        self.whenSkippable = whenSkippable
        self.clickThroughURL = clickThroughURL
        self.customData = customData
    }

    enum CodingKeys: String, CodingKey {
        case id, title
        case contentID = "contentId"
        case contentURL = "contentUrl"
        case contentType
        case posterURL = "posterUrl"
        case duration, whenSkippable
        case clickThroughURL = "clickThroughUrl"
        case customData
    }
}

/// Where playback is inside an ad break (`breakStatus`).
public struct BreakStatus: Codable, Hashable, Sendable {
    /// The break playing.
    public var breakID: String?
    /// The clip playing.
    public var breakClipID: String?
    /// Seconds into the break.
    public var currentBreakTime: Double?
    /// Seconds into the clip.
    public var currentBreakClipTime: Double?
    /// Seconds into the clip after which it can be skipped, if it can be.
    public var whenSkippable: Double?

    /// Creates a break status.
    public init(
        breakID: String? = nil, breakClipID: String? = nil, currentBreakTime: Double? = nil,
        currentBreakClipTime: Double? = nil, whenSkippable: Double? = nil
    ) {
        self.breakID = breakID
        self.breakClipID = breakClipID
        self.currentBreakTime = currentBreakTime
        self.currentBreakClipTime = currentBreakClipTime
        self.whenSkippable = whenSkippable
    }

    enum CodingKeys: String, CodingKey {
        case breakID = "breakId"
        case breakClipID = "breakClipId"
        case currentBreakTime, currentBreakClipTime, whenSkippable
    }
}

/// The playing video's format (`videoInfo`): the SDK's `GCKVideoInfo`.
public struct VideoInfo: Codable, Hashable, Sendable {
    /// An HDR format (`hdrType`).
    public struct HDRType: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Standard dynamic range.
        public static let sdr = HDRType(rawValue: "sdr")
        /// HDR10 or HLG.
        public static let hdr = HDRType(rawValue: "hdr")
        /// Dolby Vision.
        public static let dolbyVision = HDRType(rawValue: "dv")
    }

    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The HDR format, if reported.
    public var hdrType: HDRType?

    /// Creates a video format.
    public init(width: Int, height: Int, hdrType: HDRType? = nil) {
        self.width = width
        self.height = height
        self.hdrType = hdrType
    }
}
