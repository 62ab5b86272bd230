public import CastChannels

// Builders in the SDK's style (`GCKMediaInformationBuilder` and friends):
// set what you need on a mutable builder, then `build()` a value. The
// models' initializers do the same in one call; the builders read better
// when values are gathered step by step, as in the SDK's samples.

/// Builds ``MediaInformation``.
public struct MediaInformationBuilder: Sendable {
    /// The media's id.
    public var contentID: String
    /// The media's URL, when it differs from the id.
    public var contentURL: String?
    /// Buffered, live, or neither. Default buffered.
    public var streamType: MediaStreamType = .buffered
    /// The MIME type.
    public var contentType: String = ""
    /// What the media is.
    public var metadata: MediaMetadata?
    /// The length in seconds (-1 for live).
    public var streamDuration: Double?
    /// The tracks.
    public var mediaTracks: [MediaTrack]?
    /// How text tracks look.
    public var textTrackStyle: TextTrackStyle?
    /// Ad breaks.
    public var adBreaks: [AdBreakInfo]?
    /// The ad breaks' clips.
    public var adBreakClips: [AdBreakClipInfo]?
    /// A deep link.
    public var entity: String?
    /// App data.
    public var customData: JSONValue?
    /// For HLS: how the audio is packaged.
    public var hlsSegmentFormat: HLSSegmentFormat?
    /// For HLS: how the video is packaged.
    public var hlsVideoSegmentFormat: HLSVideoSegmentFormat?

    /// Starts with a URL, which is also the id.
    public init(contentURL: String) {
        self.contentID = contentURL
        self.contentURL = contentURL
    }

    /// Starts with an id the receiver app resolves.
    public init(contentID: String) {
        self.contentID = contentID
    }

    /// Starts with a deep link, which is also the id.
    public init(entity: String) {
        self.contentID = entity
        self.entity = entity
    }

    /// The media information.
    public func build() -> MediaInformation {
        MediaInformation(
            contentID: self.contentID, contentURL: self.contentURL, streamType: self.streamType,
            contentType: self.contentType, metadata: self.metadata, duration: self.streamDuration,
            tracks: self.mediaTracks, textTrackStyle: self.textTrackStyle, breaks: self.adBreaks,
            breakClips: self.adBreakClips, entity: self.entity, customData: self.customData,
            hlsSegmentFormat: self.hlsSegmentFormat, hlsVideoSegmentFormat: self.hlsVideoSegmentFormat)
    }
}

/// Builds ``MediaLoadRequestData``.
public struct MediaLoadRequestDataBuilder: Sendable {
    /// What the builder holds so far; ``build()`` returns it.
    private var data = MediaLoadRequestData()

    /// Starts empty: autoplay, from 0, at rate 1.
    public init() {}

    /// The media to load.
    public var mediaInformation: MediaInformation? {
        get { self.data.mediaInformation }
        set { self.data.mediaInformation = newValue }
    }
    /// A queue to load.
    public var queueData: MediaQueueData? {
        get { self.data.queueData }
        set { self.data.queueData = newValue }
    }
    /// Whether playback starts at once.
    public var autoplay: Bool {
        get { self.data.autoplay }
        set { self.data.autoplay = newValue }
    }
    /// Where to start, seconds; `nil` leaves it to the receiver (the live edge of a live stream).
    public var startTime: Double? {
        get { self.data.currentTime }
        set { self.data.currentTime = newValue }
    }
    /// The tracks to turn on.
    public var activeTrackIDs: [Int]? {
        get { self.data.activeTrackIDs }
        set { self.data.activeTrackIDs = newValue }
    }
    /// The playback rate.
    public var playbackRate: Double {
        get { self.data.playbackRate }
        set { self.data.playbackRate = newValue }
    }
    /// Credentials for the receiver app.
    public var credentials: String? {
        get { self.data.credentials }
        set { self.data.credentials = newValue }
    }
    /// App data.
    public var customData: JSONValue? {
        get { self.data.customData }
        set { self.data.customData = newValue }
    }

    /// The load request data.
    public func build() -> MediaLoadRequestData { self.data }
}

/// Builds ``MediaQueueItem``.
public struct MediaQueueItemBuilder: Sendable {
    private var item = MediaQueueItem(media: nil)

    /// Starts empty: autoplay, from the start, no preload.
    public init() {}

    /// The media.
    public var mediaInformation: MediaInformation? {
        get { self.item.media }
        set { self.item.media = newValue }
    }
    /// Whether the item plays when reached.
    public var autoplay: Bool {
        get { self.item.autoplay }
        set { self.item.autoplay = newValue }
    }
    /// Where in the media to start, seconds.
    public var startTime: Double {
        get { self.item.startTime }
        set { self.item.startTime = newValue }
    }
    /// How long to play it, seconds.
    public var playbackDuration: Double? {
        get { self.item.playbackDuration }
        set { self.item.playbackDuration = newValue }
    }
    /// How long before it starts to load it, seconds.
    public var preloadTime: Double {
        get { self.item.preloadTime }
        set { self.item.preloadTime = newValue }
    }
    /// The tracks to turn on.
    public var activeTrackIDs: [Int]? {
        get { self.item.activeTrackIDs }
        set { self.item.activeTrackIDs = newValue }
    }
    /// App data.
    public var customData: JSONValue? {
        get { self.item.customData }
        set { self.item.customData = newValue }
    }

    /// The queue item.
    public func build() -> MediaQueueItem { self.item }
}

/// Builds ``AdBreakInfo``.
public struct AdBreakInfoBuilder: Sendable {
    private var info: AdBreakInfo

    /// Starts a break with its id and clips, at position 0 (a pre-roll).
    public init(adBreakID: String, adBreakClipIDs: [String]) {
        self.info = AdBreakInfo(id: adBreakID, breakClipIDs: adBreakClipIDs, position: 0)
    }

    /// Where the break sits, seconds.
    public var playbackPosition: Double {
        get { self.info.position }
        set { self.info.position = newValue }
    }
    /// Whether it has been watched.
    public var isWatched: Bool {
        get { self.info.isWatched }
        set { self.info.isWatched = newValue }
    }
    /// Whether it is part of the stream itself.
    public var isEmbedded: Bool? {
        get { self.info.isEmbedded }
        set { self.info.isEmbedded = newValue }
    }

    /// The break.
    public func build() -> AdBreakInfo { self.info }
}

/// Builds ``AdBreakClipInfo``.
public struct AdBreakClipInfoBuilder: Sendable {
    private var info: AdBreakClipInfo

    /// Starts a clip with its id.
    public init(adBreakClipID: String) {
        self.info = AdBreakClipInfo(id: adBreakClipID)
    }

    /// The title.
    public var title: String? {
        get { self.info.title }
        set { self.info.title = newValue }
    }
    /// The clip's URL.
    public var contentURL: String? {
        get { self.info.contentURL }
        set { self.info.contentURL = newValue }
    }
    /// The clip's MIME type.
    public var mimeType: String? {
        get { self.info.contentType }
        set { self.info.contentType = newValue }
    }
    /// A poster image's URL.
    public var posterURL: String? {
        get { self.info.posterURL }
        set { self.info.posterURL = newValue }
    }
    /// The length, seconds.
    public var duration: Double? {
        get { self.info.duration }
        set { self.info.duration = newValue }
    }
    /// Seconds after which it can be skipped.
    public var whenSkippable: Double? {
        get { self.info.whenSkippable }
        set { self.info.whenSkippable = newValue }
    }
    /// Where a click leads.
    public var clickThroughURL: String? {
        get { self.info.clickThroughURL }
        set { self.info.clickThroughURL = newValue }
    }

    /// The clip.
    public func build() -> AdBreakClipInfo { self.info }
}
