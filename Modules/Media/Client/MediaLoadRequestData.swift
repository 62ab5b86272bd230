public import CastChannels

/// What LOAD sends besides the media: the SDK's `GCKMediaLoadRequestData`.
/// Give either ``mediaInformation`` or ``queueData``.
public struct MediaLoadRequestData: Sendable, Hashable {
    /// The media to load.
    public var mediaInformation: MediaInformation?
    /// A queue to load instead of (or around) one media.
    public var queueData: MediaQueueData?
    /// Whether playback starts at once. Default `true`.
    public var autoplay: Bool
    /// Where to start, seconds. Default `nil`: LOAD leaves it out, so the
    /// receiver starts at its own default — the beginning, or the live edge
    /// of a live stream (CAF `LoadRequestData.currentTime`).
    public var currentTime: Double?
    /// The tracks to turn on.
    public var activeTrackIDs: [Int]?
    /// The playback rate. Default 1.
    public var playbackRate: Double
    /// Credentials for the receiver app.
    public var credentials: String?
    /// The kind of credentials.
    public var credentialsType: String?
    /// App data.
    public var customData: JSONValue?

    /// Creates load request data.
    public init(
        mediaInformation: MediaInformation? = nil, queueData: MediaQueueData? = nil, autoplay: Bool = true,
        currentTime: Double? = nil, activeTrackIDs: [Int]? = nil, playbackRate: Double = 1, credentials: String? = nil,
        credentialsType: String? = nil, customData: JSONValue? = nil
    ) {
        self.mediaInformation = mediaInformation
        self.queueData = queueData
        self.autoplay = autoplay
        self.currentTime = currentTime
        self.activeTrackIDs = activeTrackIDs
        self.playbackRate = playbackRate
        self.credentials = credentials
        self.credentialsType = credentialsType
        self.customData = customData
    }
}

/// A queue to load (`queueData` in LOAD): its items, where to start, how to repeat.
public struct MediaQueueData: Codable, Sendable, Hashable {
    /// The items.
    public var items: [MediaQueueItem]
    /// The index of the item to start with.
    public var startIndex: Int
    /// How the queue repeats.
    public var repeatMode: RepeatMode

    /// Creates queue data.
    public init(items: [MediaQueueItem], startIndex: Int = 0, repeatMode: RepeatMode = .off) {
        self.items = items
        self.startIndex = startIndex
        self.repeatMode = repeatMode
    }
}

/// How to seek: the SDK's `GCKMediaSeekOptions`.
public struct MediaSeekOptions: Sendable, Hashable {
    /// Whether to play or pause after seeking.
    public enum ResumeState: String, Sendable, Hashable {
        /// Keep the current state.
        case unchanged
        /// Play after seeking (`PLAYBACK_START`).
        case play = "PLAYBACK_START"
        /// Pause after seeking (`PLAYBACK_PAUSE`).
        case pause = "PLAYBACK_PAUSE"
    }

    /// The position in seconds; with ``relative``, the offset from the current one.
    public var interval: Double
    /// Whether ``interval`` is relative (`relativeTime`) rather than absolute (`currentTime`).
    public var relative: Bool
    /// Play or pause afterwards.
    public var resumeState: ResumeState
    /// App data.
    public var customData: JSONValue?

    /// Creates seek options.
    public init(
        interval: Double, relative: Bool = false, resumeState: ResumeState = .unchanged, customData: JSONValue? = nil
    ) {
        self.interval = interval
        self.relative = relative
        self.resumeState = resumeState
        self.customData = customData
    }
}

/// A change to the queue another sender (or the receiver) made (QUEUE_CHANGE).
public struct MediaQueueChange: Sendable, Hashable {
    /// `INSERT`, `REMOVE`, `UPDATE`, `ITEMS_CHANGE` or `NO_CHANGE`.
    public var changeType: String
    /// The items concerned.
    public var itemIDs: [Int]
    /// Where inserted items went, if given.
    public var insertBefore: Int?

    /// Creates a queue change.
    public init(changeType: String, itemIDs: [Int], insertBefore: Int? = nil) {
        self.changeType = changeType
        self.itemIDs = itemIDs
        self.insertBefore = insertBefore
    }
}

/// What a ``RemoteMediaClient`` observes: the SDK's
/// `GCKRemoteMediaClientListener` callbacks.
public enum MediaEvent: Sendable, Hashable {
    /// The media, its metadata or its text-track style changed (the SDK's
    /// `didUpdateMediaMetadata`); `nil` when the media session ended. It
    /// comes just before the ``statusChanged(_:)`` of the same update.
    case metadataChanged(MediaInformation?)
    /// The merged media status changed; `nil` when there is no media session.
    case statusChanged(MediaStatus?)
    /// The queue changed.
    case queueChanged(MediaQueueChange)
}
