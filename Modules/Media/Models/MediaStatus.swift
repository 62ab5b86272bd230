public import CastChannels

/// The commands the current media accepts (`supportedMediaCommands`).
public struct SupportedMediaCommands: OptionSet, Codable, Hashable, Sendable {
    /// The wire bits.
    public let rawValue: Int
    /// Wraps wire bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// PAUSE.
    public static let pause = SupportedMediaCommands(rawValue: 1 << 0)
    /// SEEK.
    public static let seek = SupportedMediaCommands(rawValue: 1 << 1)
    /// Stream volume.
    public static let streamVolume = SupportedMediaCommands(rawValue: 1 << 2)
    /// Stream mute.
    public static let streamMute = SupportedMediaCommands(rawValue: 1 << 3)
    /// Skip forward.
    public static let skipForward = SupportedMediaCommands(rawValue: 1 << 4)
    /// Skip backward.
    public static let skipBackward = SupportedMediaCommands(rawValue: 1 << 5)
    /// Next queue item.
    public static let queueNext = SupportedMediaCommands(rawValue: 1 << 6)
    /// Previous queue item.
    public static let queuePrevious = SupportedMediaCommands(rawValue: 1 << 7)
    /// Shuffle the queue.
    public static let queueShuffle = SupportedMediaCommands(rawValue: 1 << 8)
    /// Skip an ad.
    public static let skipAd = SupportedMediaCommands(rawValue: 1 << 9)
    /// Repeat the whole queue.
    public static let queueRepeatAll = SupportedMediaCommands(rawValue: 1 << 10)
    /// Repeat one item.
    public static let queueRepeatOne = SupportedMediaCommands(rawValue: 1 << 11)
    /// Change active tracks and text style.
    public static let editTracks = SupportedMediaCommands(rawValue: 1 << 12)
    /// Change the playback rate.
    public static let playbackRate = SupportedMediaCommands(rawValue: 1 << 13)
    /// Like.
    public static let like = SupportedMediaCommands(rawValue: 1 << 14)
    /// Dislike.
    public static let dislike = SupportedMediaCommands(rawValue: 1 << 15)
    /// Follow.
    public static let follow = SupportedMediaCommands(rawValue: 1 << 16)
    /// Unfollow.
    public static let unfollow = SupportedMediaCommands(rawValue: 1 << 17)
    /// Stream transfer.
    public static let streamTransfer = SupportedMediaCommands(rawValue: 1 << 18)
}

/// A media stream's own volume (`volume` in MEDIA_STATUS).
public struct StreamVolume: Codable, Hashable, Sendable {
    /// The level, 0...1, if reported.
    public var level: Double?
    /// Whether the stream is muted, if reported.
    public var muted: Bool?

    /// Creates a stream volume.
    public init(level: Double? = nil, muted: Bool? = nil) {
        self.level = level
        self.muted = muted
    }
}

/// The part of a live stream that can be seeked (`liveSeekableRange`).
public struct LiveSeekableRange: Codable, Hashable, Sendable {
    /// The earliest position, seconds.
    public var start: Double?
    /// The latest position, seconds.
    public var end: Double?
    /// Whether the window moves forward with the live edge.
    public var isMovingWindow: Bool?
    /// Whether the live stream has ended.
    public var isLiveDone: Bool?

    /// Creates a range.
    public init(start: Double? = nil, end: Double? = nil, isMovingWindow: Bool? = nil, isLiveDone: Bool? = nil) {
        self.start = start
        self.end = end
        self.isMovingWindow = isMovingWindow
        self.isLiveDone = isLiveDone
    }
}

/// The state of one media session (an entry of MEDIA_STATUS `status[]`):
/// the SDK's `GCKMediaStatus`. Receivers send partial updates; read it
/// through ``MediaStatusCache``, which merges them.
public struct MediaStatus: Codable, Hashable, Sendable {
    /// The media session's id; it changes with every LOAD.
    public var mediaSessionID: Int
    /// The media, as last sent in full.
    public var media: MediaInformation?
    /// The playback rate, 1 for normal speed.
    public var playbackRate: Double
    /// What the player is doing.
    public var playerState: PlayerState
    /// Why it is idle, when it is.
    public var idleReason: IdleReason?
    /// The position, seconds, when the status was sent.
    public var currentTime: Double
    /// The commands the media accepts.
    public var supportedMediaCommands: SupportedMediaCommands
    /// The stream volume.
    public var volume: StreamVolume
    /// The tracks on.
    public var activeTrackIDs: [Int]?
    /// The queue item playing.
    public var currentItemID: Int?
    /// The queue item loading.
    public var loadingItemID: Int?
    /// The queue item preloaded next.
    public var preloadedItemID: Int?
    /// Queue items the receiver chose to include.
    public var items: [MediaQueueItem]?
    /// How the queue repeats.
    public var repeatMode: RepeatMode?
    /// The video format.
    public var videoInfo: VideoInfo?
    /// Extra state (LOADING lives here), as sent.
    public var extendedStatus: JSONValue?
    /// Where an ad break is, during one.
    public var breakStatus: BreakStatus?
    /// The seekable window of a live stream.
    public var liveSeekableRange: LiveSeekableRange?
    /// App data.
    public var customData: JSONValue?

    /// Creates a status.
    public init(
        mediaSessionID: Int, media: MediaInformation? = nil, playbackRate: Double = 1, playerState: PlayerState,
        idleReason: IdleReason? = nil, currentTime: Double = 0, supportedMediaCommands: SupportedMediaCommands = [],
        volume: StreamVolume = StreamVolume()
    ) {
        self.mediaSessionID = mediaSessionID
        self.media = media
        self.playbackRate = playbackRate
        self.playerState = playerState
        self.idleReason = idleReason
        self.currentTime = currentTime
        self.supportedMediaCommands = supportedMediaCommands
        self.volume = volume
    }

    enum CodingKeys: String, CodingKey {
        case mediaSessionID = "mediaSessionId"
        case media, playbackRate, playerState, idleReason, currentTime, supportedMediaCommands, volume
        case activeTrackIDs = "activeTrackIds"
        case currentItemID = "currentItemId"
        case loadingItemID = "loadingItemId"
        case preloadedItemID = "preloadedItemId"
        case items, repeatMode, videoInfo, extendedStatus, breakStatus, liveSeekableRange, customData
    }

    /// Reads a `status[]` entry; everything but `mediaSessionId` may be missing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.mediaSessionID = try container.decode(Int.self, forKey: .mediaSessionID)
        self.media = try container.decodeIfPresent(MediaInformation.self, forKey: .media)
        self.playbackRate = try container.decodeIfPresent(Double.self, forKey: .playbackRate) ?? 1
        self.playerState = try container.decodeIfPresent(PlayerState.self, forKey: .playerState) ?? .idle
        self.idleReason = try container.decodeIfPresent(IdleReason.self, forKey: .idleReason)
        self.currentTime = try container.decodeIfPresent(Double.self, forKey: .currentTime) ?? 0
        self.supportedMediaCommands =
            try container.decodeIfPresent(SupportedMediaCommands.self, forKey: .supportedMediaCommands) ?? []
        self.volume = try container.decodeIfPresent(StreamVolume.self, forKey: .volume) ?? StreamVolume()
        self.activeTrackIDs = try container.decodeIfPresent([Int].self, forKey: .activeTrackIDs)
        self.currentItemID = try container.decodeIfPresent(Int.self, forKey: .currentItemID)
        self.loadingItemID = try container.decodeIfPresent(Int.self, forKey: .loadingItemID)
        self.preloadedItemID = try container.decodeIfPresent(Int.self, forKey: .preloadedItemID)
        self.items = try container.decodeIfPresent([MediaQueueItem].self, forKey: .items)
        self.repeatMode = try container.decodeIfPresent(RepeatMode.self, forKey: .repeatMode)
        self.videoInfo = try container.decodeIfPresent(VideoInfo.self, forKey: .videoInfo)
        self.extendedStatus = try container.decodeIfPresent(JSONValue.self, forKey: .extendedStatus)
        self.breakStatus = try container.decodeIfPresent(BreakStatus.self, forKey: .breakStatus)
        self.liveSeekableRange = try container.decodeIfPresent(LiveSeekableRange.self, forKey: .liveSeekableRange)
        self.customData = try container.decodeIfPresent(JSONValue.self, forKey: .customData)
    }
}
