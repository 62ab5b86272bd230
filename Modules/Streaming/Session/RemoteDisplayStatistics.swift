/// One stream's counters since the session began.
public struct StreamStatistics: Sendable, Hashable {
    /// Frames encrypted, packetized and handed to the pacer.
    public var framesSent: Int
    /// Frames the receiver acknowledged.
    public var framesAcknowledged: Int
    /// Frames refused before sending: the in-flight limits, a full encoder backlog, or an interruption.
    public var framesDropped: Int
    /// Frames sent and not yet acknowledged.
    public var framesInFlight: Int
    /// Key frames sent (every Opus frame counts).
    public var keyFrames: Int
    /// RTP packets sent, retransmissions included.
    public var packetsSent: Int
    /// Packets sent again after a NACK or a kickstart.
    public var retransmittedPackets: Int

    /// Creates counters.
    public init(
        framesSent: Int = 0, framesAcknowledged: Int = 0, framesDropped: Int = 0, framesInFlight: Int = 0,
        keyFrames: Int = 0, packetsSent: Int = 0, retransmittedPackets: Int = 0
    ) {
        self.framesSent = framesSent
        self.framesAcknowledged = framesAcknowledged
        self.framesDropped = framesDropped
        self.framesInFlight = framesInFlight
        self.keyFrames = keyFrames
        self.packetsSent = packetsSent
        self.retransmittedPackets = retransmittedPackets
    }
}

/// A Remote Display session's statistics, published every 500 ms.
public struct RemoteDisplayStatistics: Sendable, Hashable {
    /// Video frames the encoder produced.
    public var videoFramesEncoded: Int
    /// The video stream's counters, `nil` when the receiver took audio only.
    public var video: StreamStatistics?
    /// The audio stream's counters, `nil` without audio.
    public var audio: StreamStatistics?
    /// The video encoder's target bitrate now, bits per second.
    public var videoBitrate: Int
    /// The estimated network bandwidth, bits per second, once there is one.
    public var bandwidthEstimate: Int?
    /// The smoothed round-trip time to the receiver, once measured.
    public var roundTripTime: Duration?
    /// The shortest round trip of the last 10 seconds: the link's own
    /// delay, without queueing and jitter (what several receivers are
    /// played in step by).
    public var minimumRoundTripTime: Duration?
    /// Mean time to encode one video frame over the last interval.
    public var averageEncodeTime: Duration
    /// The playout delay in force.
    public var targetDelay: Duration
    /// The size video is encoded at now: the negotiated one, or smaller
    /// while congestion lowers it (``RemoteDisplayConfiguration/adaptsToCongestion``).
    /// `nil` without video.
    public var videoResolution: RemoteDisplayConfiguration.Resolution?
    /// The frames per second video is encoded at now, at most the
    /// negotiated rate; `nil` without video.
    public var videoFrameRate: Int?

    /// Creates statistics.
    public init(
        videoFramesEncoded: Int = 0, video: StreamStatistics? = nil, audio: StreamStatistics? = nil,
        videoBitrate: Int = 0, bandwidthEstimate: Int? = nil, roundTripTime: Duration? = nil,
        averageEncodeTime: Duration = .zero, targetDelay: Duration = .zero,
        videoResolution: RemoteDisplayConfiguration.Resolution? = nil, videoFrameRate: Int? = nil,
        minimumRoundTripTime: Duration? = nil
    ) {
        self.videoFramesEncoded = videoFramesEncoded
        self.video = video
        self.audio = audio
        self.videoBitrate = videoBitrate
        self.bandwidthEstimate = bandwidthEstimate
        self.roundTripTime = roundTripTime
        self.minimumRoundTripTime = minimumRoundTripTime
        self.averageEncodeTime = averageEncodeTime
        self.targetDelay = targetDelay
        self.videoResolution = videoResolution
        self.videoFrameRate = videoFrameRate
    }
}
