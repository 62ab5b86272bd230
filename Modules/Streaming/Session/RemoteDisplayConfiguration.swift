public import CastChannels

/// What a Remote Display session offers the receiver — the SDK's
/// `GCKRemoteDisplayConfiguration`. After the ANSWER,
/// ``RemoteDisplaySession/configuration`` holds the values in force: one
/// resolution, and bitrates, frame rate and delay within the receiver's
/// constraints.
public struct RemoteDisplayConfiguration: Sendable, Hashable {
    /// A picture size.
    public struct Resolution: Sendable, Hashable, CustomStringConvertible {
        /// Pixels per row.
        public var width: Int
        /// Rows.
        public var height: Int

        /// Creates a resolution.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        /// 1280×720.
        public static let hd720 = Resolution(width: 1_280, height: 720)
        /// 1920×1080.
        public static let hd1080 = Resolution(width: 1_920, height: 1_080)
        /// 320×240, the smallest resolution a session offers: each side at least this.
        public static let smallest = Resolution(width: 320, height: 240)

        public var description: String { "\(self.width)×\(self.height)" }
    }

    /// The audio stream's settings.
    public struct Audio: Sendable, Hashable {
        /// Channels: 1 or 2.
        public var channelCount: Int
        /// Opus bitrate, bits per second.
        public var bitrate: Int

        /// Creates audio settings. Default: stereo at 128 kbit/s.
        public init(channelCount: Int = 2, bitrate: Int = 128_000) {
            self.channelCount = channelCount
            self.bitrate = bitrate
        }

        /// Opus at 48 kHz, the only rate Remote Display sends.
        public static let sampleRate = 48_000
    }

    /// Resolutions the app can render, most preferred first; the receiver
    /// may accept any that fits its constraints.
    public var resolutions: [Resolution]
    /// Frames per second at most.
    public var maximumFrameRate: Int
    /// Video bitrate range, bits per second; the sender adapts within it.
    public var minimumVideoBitrate: Int
    /// The upper end of the video bitrate range, and where sending starts.
    public var maximumVideoBitrate: Int
    /// Audio, or `nil` for video only.
    public var audio: Audio?
    /// How long after capture the receiver plays each frame: latency traded
    /// for time to recover lost packets. Changeable on the fly through
    /// ``RemoteDisplaySession/targetDelay``. With ``adaptiveDelayRange``,
    /// where the session starts.
    public var targetDelay: Duration
    /// Where the session moves the target delay by itself, to the smallest
    /// the link keeps frames on time with (low latency, ``Latency/low``);
    /// `nil` (the default) keeps ``targetDelay`` until the app changes it.
    public var adaptiveDelayRange: ClosedRange<Duration>?
    /// The video codecs offered, in Chrome's order of preference (VP9,
    /// then VP8: openscreen_session_host.cc `NegotiateMirroring`); the
    /// receiver takes one. After the ANSWER: the one it took. Default both.
    /// Empty: no video stream is offered at all (``audioOnly(_:targetDelay:applicationID:)``).
    public var videoCodecs: [VideoCodec]
    /// The receiver app that plays the streams. Default: screen mirroring `0F5096E8`.
    public var applicationID: String
    /// How long to wait for the ANSWER. Default 4 s, as Open Screen.
    public var answerTimeout: Duration
    /// Whether congestion lowers the encoded size, then the frame rate,
    /// and returning bandwidth raises them again (as Chrome's mirroring
    /// does), rather than only the bitrate. Frames are still enqueued at
    /// ``resolution``; the encoder scales them. Default `true`.
    public var adaptsToCongestion: Bool
    /// How long after the session begins the first frame must be enqueued.
    /// Receivers end a session that gets no frame for 15 s (the SDK's
    /// Remote Display guide: "After the session is received, an app has 15
    /// seconds to send a frame, otherwise the session times out"), so the
    /// session warns at half the deadline and ends with
    /// ``RemoteDisplaySessionEndReason/noFirstFrame`` at the deadline. Default 15 s.
    public var firstFrameDeadline: Duration

    /// Creates a configuration. Defaults: 1280×720 at 30 fps, 300 kbit/s…5 Mbit/s
    /// VP9 or VP8 video, stereo audio at 128 kbit/s, 400 ms target delay, the mirroring app.
    public init(
        resolutions: [Resolution] = [.hd720],
        maximumFrameRate: Int = 30,
        minimumVideoBitrate: Int = 300_000,
        maximumVideoBitrate: Int = 5_000_000,
        videoCodecs: [VideoCodec] = [.vp9, .vp8],
        audio: Audio? = Audio(),
        targetDelay: Duration = .milliseconds(400),
        applicationID: String = "0F5096E8",
        answerTimeout: Duration = .seconds(4),
        adaptsToCongestion: Bool = true,
        firstFrameDeadline: Duration = .seconds(15)
    ) {
        self.resolutions = resolutions
        self.maximumFrameRate = maximumFrameRate
        self.minimumVideoBitrate = minimumVideoBitrate
        self.maximumVideoBitrate = maximumVideoBitrate
        self.videoCodecs = videoCodecs
        self.audio = audio
        self.targetDelay = targetDelay
        self.applicationID = applicationID
        self.answerTimeout = answerTimeout
        self.adaptsToCongestion = adaptsToCongestion
        self.firstFrameDeadline = firstFrameDeadline
    }

    /// Sound alone, for speakers and speaker groups: an OFFER with the Opus
    /// stream and no video stream, to the audio mirroring app `85CDB22F` by
    /// default. Chrome's audio-only OFFER is its audio and video OFFER
    /// without any `video_source` stream (`NegotiateMirroring`,
    /// `Session::CreateAndSendOffer`; Docs/spec/cast-streaming.md §6.1), and
    /// Open Screen's receiver answers it with the audio stream's index alone
    /// and no constraints (answer_messages.cc:292-293, §6.2).
    public static func audioOnly(
        _ audio: Audio = Audio(), targetDelay: Duration = .milliseconds(400),
        applicationID: String = CastApplicationID.audioMirroring
    ) -> RemoteDisplayConfiguration {
        RemoteDisplayConfiguration(
            videoCodecs: [], audio: audio, targetDelay: targetDelay, applicationID: applicationID)
    }

    /// Whether a video stream is offered: ``videoCodecs`` is not empty.
    public var offersVideo: Bool { !self.videoCodecs.isEmpty }

    /// The resolution in force: the first of ``resolutions``.
    public var resolution: Resolution { self.resolutions.first ?? .hd720 }

    /// The video codec in force: the first of ``videoCodecs``.
    public var videoCodec: VideoCodec { self.videoCodecs.first ?? .vp8 }

    /// Target delays a receiver accepts (Docs/spec/cast-streaming.md §1).
    static let targetDelayRange: ClosedRange<Duration> = .milliseconds(1) ... .milliseconds(5_000)

    /// Checks the values before anything is sent.
    func validated() throws(CastRemoteDisplayError) -> Self {
        func check(_ condition: Bool, _ message: String) throws(CastRemoteDisplayError) {
            if !condition { throw CastRemoteDisplayError(.invalidConfiguration, message) }
        }
        try check(!self.resolutions.isEmpty, "offer at least one resolution")
        try check(self.firstFrameDeadline > .zero, "the first-frame deadline must be positive")
        try check(Set(self.videoCodecs).count == self.videoCodecs.count, "offer each video codec once")
        if let range = self.adaptiveDelayRange {
            try check(
                Self.targetDelayRange.contains(range.lowerBound) && Self.targetDelayRange.contains(range.upperBound),
                "the adaptive delay range \(range) is outside 1 ms…5 s")
        }
        try check(self.offersVideo || self.audio != nil, "offer video, audio or both")
        for resolution in self.resolutions {
            try check(
                resolution.width >= Resolution.smallest.width && resolution.height >= Resolution.smallest.height
                    && resolution.width <= RemoteDisplayLimits.maximumDimension
                    && resolution.height <= RemoteDisplayLimits.maximumDimension
                    && resolution.width % 2 == 0 && resolution.height % 2 == 0,
                "resolution \(resolution) must be even, at least \(Resolution.smallest) and at most 4096 per side")
        }
        try check((1...120).contains(self.maximumFrameRate), "frame rate \(self.maximumFrameRate) is outside 1…120")
        try check(
            VideoEncoderConfiguration.bitrateRange.contains(self.minimumVideoBitrate)
                && VideoEncoderConfiguration.bitrateRange.contains(self.maximumVideoBitrate)
                && self.minimumVideoBitrate <= self.maximumVideoBitrate,
            "video bitrates \(self.minimumVideoBitrate)…\(self.maximumVideoBitrate) are not a range within \(VideoEncoderConfiguration.bitrateRange)"
        )
        if let audio = self.audio {
            try check(audio.channelCount == 1 || audio.channelCount == 2, "audio has 1 or 2 channels")
            try check(
                OpusEncoder.bitrateRange.contains(audio.bitrate),
                "audio bitrate \(audio.bitrate) is outside \(OpusEncoder.bitrateRange)")
        }
        try check(
            Self.targetDelayRange.contains(self.targetDelay), "target delay \(self.targetDelay) is outside 1 ms…5 s")
        try check(!self.applicationID.isEmpty, "the receiver app id is empty")
        return self
    }
}

extension RemoteDisplayConfiguration {
    /// How a session trades latency for smoothness: what `cast screen
    /// --latency` chooses.
    public enum Latency: Sendable, Hashable {
        /// As little delay as the link allows, for a presentation, a game or
        /// a moving cursor: starts at 120 ms and follows the link between
        /// 60 and 400 ms (``adaptiveDelayRange``). The encoders never wait
        /// for later frames (real-time modes, no B-frames or look-ahead),
        /// and a frame that cannot go in time is dropped and followed by a
        /// key frame rather than waited for.
        case low
        /// 400 ms, fixed: room to resend lost packets on a home network.
        case normal
        /// 800 ms, fixed: films and slides over a busy or distant link.
        case smooth
        /// This delay, fixed.
        case fixed(Duration)
    }

    /// Sets ``targetDelay`` and ``adaptiveDelayRange`` as `latency` says.
    public mutating func setLatency(_ latency: Latency) {
        switch latency {
        case .low:
            self.targetDelay = .milliseconds(120)
            self.adaptiveDelayRange = .milliseconds(60) ... .milliseconds(400)
        case .normal:
            self.targetDelay = .milliseconds(400)
            self.adaptiveDelayRange = nil
        case .smooth:
            self.targetDelay = .milliseconds(800)
            self.adaptiveDelayRange = nil
        case .fixed(let delay):
            self.targetDelay = delay
            self.adaptiveDelayRange = nil
        }
    }
}
