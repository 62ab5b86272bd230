@_spi(Receiver) public import CastStreaming

/// What the emulator's streaming receiver measured for one stream.
public struct StreamReport: Sendable, Hashable {
    /// Frames whose every packet arrived.
    public var framesReceived = 0
    /// Frames decoded (libvpx, libopus), or — with decoding off — taken in order.
    public var framesDecoded = 0
    /// Decoded frames that were ready only after their playout time.
    public var framesLate = 0
    /// Frames skipped: still incomplete at their playout time with a later frame ready.
    public var framesLost = 0
    /// Decoded key frames.
    public var keyFrames = 0
    /// RTP packets accepted (duplicates not counted).
    public var packetsReceived = 0
    /// Packets that arrived twice (a retransmission after the original made it).
    public var duplicatePackets = 0
    /// Packets refused as malformed (too many packets in a frame, or a packet count that changed).
    public var packetsRefused = 0
    /// Packets 0 dropped because no Sender Report had arrived yet (Open Screen's rule).
    public var packetsDroppedBeforeSenderReport = 0
    /// Frames that failed to decrypt-and-decode.
    public var decodeErrors = 0
    /// The lowest luma PSNR of a decoded picture against the test's reference, dB.
    public var minimumPSNR: Double?
    /// The mean luma PSNR of decoded pictures against the test's reference, dB.
    public var meanPSNR: Double?
    /// Decoded pictures for which the reference had no picture at that capture time.
    public var unmatchedPictures = 0
    /// Capture → decoded latency, median over the session.
    public var latencyP50: Duration?
    /// Capture → decoded latency, 99th percentile over the session.
    public var latencyP99: Duration?
    /// Capture → shown, median over the session: when a frame plays (its
    /// playout time) or, decoded after that, when it was decoded (a late
    /// picture shows as soon as it is ready). Draw → shown for a picture
    /// stamped when it was drawn.
    public var shownLatencyP50: Duration?
    /// Capture → shown, 99th percentile over the session.
    public var shownLatencyP99: Duration?
    /// The playout delay in force (from the OFFER, then the in-band extension).
    public var playoutDelay: Duration = .zero
    /// How far after capture this stream's frames are scheduled to play, on average.
    public var meanPlayoutOffset: Duration?
    /// The id of the last frame decoded.
    public var lastFrameID: Int64 = -1
    /// The video codec the receiver took (`nil` for audio).
    public var codec: VideoCodec?
    /// The width of the last picture decoded (video), pixels; 0 before the first.
    public var pictureWidth = 0
    /// The height of the last picture decoded (video), pixels; 0 before the first.
    public var pictureHeight = 0
    /// The RMS level of the last second of sound decoded (audio, first channel), dBFS; a
    /// half-scale sine is −9.03. `nil` for video and before any sound.
    public var soundLevel: Double?
    /// The frequency of the last second of sound decoded (audio, first channel, from its
    /// zero crossings), Hz. `nil` for video and before any sound.
    public var soundFrequency: Double?

    /// Creates an empty report.
    public init() {}
}

/// What the emulator's streaming receiver measured in the current (or last) session.
public struct StreamingReport: Sendable, Hashable {
    /// The audio stream, if one was accepted.
    public var audio: StreamReport?
    /// The video stream, if one was accepted.
    public var video: StreamReport?
    /// Datagrams the impairment dropped.
    public var datagramsDroppedByImpairment: Int
    /// RTCP compound packets the receiver sent.
    public var feedbackPacketsSent: Int
    /// Sender reports received.
    public var senderReportsReceived: Int
    /// How much later audio plays than video captured at the same instant
    /// (mean playout offsets, audio − video); near zero when the sender's
    /// reports map both streams to one capture clock.
    public var audioVideoOffset: Duration? {
        guard let audio = self.audio?.meanPlayoutOffset, let video = self.video?.meanPlayoutOffset else { return nil }
        return audio - video
    }

    /// Creates a report.
    public init(
        audio: StreamReport? = nil, video: StreamReport? = nil, datagramsDroppedByImpairment: Int = 0,
        feedbackPacketsSent: Int = 0, senderReportsReceived: Int = 0
    ) {
        self.audio = audio
        self.video = video
        self.datagramsDroppedByImpairment = datagramsDroppedByImpairment
        self.feedbackPacketsSent = feedbackPacketsSent
        self.senderReportsReceived = senderReportsReceived
    }
}
