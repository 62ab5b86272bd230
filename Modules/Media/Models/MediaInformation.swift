public import CastChannels

/// The media to play (`media`): the SDK's `GCKMediaInformation`.
public struct MediaInformation: Codable, Hashable, Sendable {
    /// The media's id, usually its URL (at most 1000 characters).
    public var contentID: String
    /// The media's URL, when it differs from the id; it wins as the URL.
    public var contentURL: String?
    /// Buffered, live, or neither.
    public var streamType: MediaStreamType
    /// The MIME type, e.g. `video/mp4`.
    public var contentType: String
    /// What the media is.
    public var metadata: MediaMetadata?
    /// The length in seconds; -1 for live streams.
    public var duration: Double?
    /// Text, audio and video tracks.
    public var tracks: [MediaTrack]?
    /// How text tracks look.
    public var textTrackStyle: TextTrackStyle?
    /// Ad breaks.
    public var breaks: [AdBreakInfo]?
    /// The clips of the ad breaks.
    public var breakClips: [AdBreakClipInfo]?
    /// A deep link for the media (an app URL).
    public var entity: String?
    /// App data.
    public var customData: JSONValue?
    /// For HLS: how the audio is packaged (the receiver assumes packed AAC otherwise).
    public var hlsSegmentFormat: HLSSegmentFormat?
    /// For HLS: how the video is packaged.
    public var hlsVideoSegmentFormat: HLSVideoSegmentFormat?

    /// Creates media information.
    public init(
        contentID: String, contentURL: String? = nil, streamType: MediaStreamType = .buffered,
        contentType: String, metadata: MediaMetadata? = nil, duration: Double? = nil, tracks: [MediaTrack]? = nil,
        textTrackStyle: TextTrackStyle? = nil, breaks: [AdBreakInfo]? = nil, breakClips: [AdBreakClipInfo]? = nil,
        entity: String? = nil, customData: JSONValue? = nil, hlsSegmentFormat: HLSSegmentFormat? = nil,
        hlsVideoSegmentFormat: HLSVideoSegmentFormat? = nil
    ) {
        self.contentID = contentID
        self.contentURL = contentURL
        self.streamType = streamType
        self.contentType = contentType
        self.metadata = metadata
        self.duration = duration
        self.tracks = tracks
        self.textTrackStyle = textTrackStyle
        self.breaks = breaks
        self.breakClips = breakClips
        self.entity = entity
        self.customData = customData
        self.hlsSegmentFormat = hlsSegmentFormat
        self.hlsVideoSegmentFormat = hlsVideoSegmentFormat
    }

    enum CodingKeys: String, CodingKey {
        case contentID = "contentId"
        case contentURL = "contentUrl"
        case streamType, contentType, metadata, duration, tracks, textTrackStyle, breaks, breakClips, entity
        case customData, hlsSegmentFormat, hlsVideoSegmentFormat
    }

    /// Reads a `media` object; receivers may leave out `contentType` or `streamType`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.contentID = try container.decodeIfPresent(String.self, forKey: .contentID) ?? ""
        self.contentURL = try container.decodeIfPresent(String.self, forKey: .contentURL)
        self.streamType = try container.decodeIfPresent(MediaStreamType.self, forKey: .streamType) ?? .none
        self.contentType = try container.decodeIfPresent(String.self, forKey: .contentType) ?? ""
        self.metadata = try container.decodeIfPresent(MediaMetadata.self, forKey: .metadata)
        self.duration = try container.decodeIfPresent(Double.self, forKey: .duration)
        self.tracks = try container.decodeIfPresent([MediaTrack].self, forKey: .tracks)
        self.textTrackStyle = try container.decodeIfPresent(TextTrackStyle.self, forKey: .textTrackStyle)
        self.breaks = try container.decodeIfPresent([AdBreakInfo].self, forKey: .breaks)
        self.breakClips = try container.decodeIfPresent([AdBreakClipInfo].self, forKey: .breakClips)
        self.entity = try container.decodeIfPresent(String.self, forKey: .entity)
        self.customData = try container.decodeIfPresent(JSONValue.self, forKey: .customData)
        self.hlsSegmentFormat = try container.decodeIfPresent(HLSSegmentFormat.self, forKey: .hlsSegmentFormat)
        self.hlsVideoSegmentFormat = try container.decodeIfPresent(
            HLSVideoSegmentFormat.self, forKey: .hlsVideoSegmentFormat)
    }
}

/// One item of a media queue (`items[]`): the SDK's `GCKMediaQueueItem`.
public struct MediaQueueItem: Codable, Hashable, Sendable {
    /// The receiver's id for the item; `nil` until the receiver assigns one.
    public var itemID: Int?
    /// The media.
    public var media: MediaInformation?
    /// Whether the item plays when it is reached.
    public var autoplay: Bool
    /// Where in the media to start, seconds.
    public var startTime: Double
    /// How long to play it, seconds; `nil` for all of it.
    public var playbackDuration: Double?
    /// How long before the item starts to load it, seconds.
    public var preloadTime: Double
    /// The tracks to turn on.
    public var activeTrackIDs: [Int]?
    /// App data.
    public var customData: JSONValue?

    /// Creates a queue item.
    public init(
        itemID: Int? = nil, media: MediaInformation?, autoplay: Bool = true, startTime: Double = 0,
        playbackDuration: Double? = nil, preloadTime: Double = 0, activeTrackIDs: [Int]? = nil,
        customData: JSONValue? = nil
    ) {
        self.itemID = itemID
        self.media = media
        self.autoplay = autoplay
        self.startTime = startTime
        self.playbackDuration = playbackDuration
        self.preloadTime = preloadTime
        self.activeTrackIDs = activeTrackIDs
        self.customData = customData
    }

    enum CodingKeys: String, CodingKey {
        case itemID = "itemId"
        case media, autoplay, startTime, playbackDuration, preloadTime
        case activeTrackIDs = "activeTrackIds"
        case customData
    }

    /// Reads an `items[]` entry, with the protocol's defaults for what is left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.itemID = try container.decodeIfPresent(Int.self, forKey: .itemID)
        self.media = try container.decodeIfPresent(MediaInformation.self, forKey: .media)
        self.autoplay = try container.decodeIfPresent(Bool.self, forKey: .autoplay) ?? true
        self.startTime = try container.decodeIfPresent(Double.self, forKey: .startTime) ?? 0
        self.playbackDuration = try container.decodeIfPresent(Double.self, forKey: .playbackDuration)
        self.preloadTime = try container.decodeIfPresent(Double.self, forKey: .preloadTime) ?? 0
        self.activeTrackIDs = try container.decodeIfPresent([Int].self, forKey: .activeTrackIDs)
        self.customData = try container.decodeIfPresent(JSONValue.self, forKey: .customData)
    }
}
