@_spi(Receiver) public import CastStreaming

/// How the emulator's Cast Streaming receiver answers OFFERs and treats
/// the media path: the knobs a Remote Display test turns.
public struct StreamingReceiverConfiguration: Sendable {
    /// How to answer an OFFER.
    public enum AnswerPolicy: Sendable, Hashable {
        /// Accept the first Opus and the first VP8 stream.
        case accept
        /// Accept only the first Opus stream.
        case acceptAudioOnly
        /// Refuse with `result: "error"` and this code and description.
        case reject(code: Int, description: String)
    }

    /// The `constraints` object of the ANSWER; `nil` fields are left out.
    public struct Constraints: Sendable, Hashable {
        /// Largest picture the receiver takes.
        public var maximumResolution: RemoteDisplayConfiguration.Resolution?
        /// Highest frame rate.
        public var maximumFrameRate: Int?
        /// Video bitrate range, bits per second.
        public var minimumVideoBitrate: Int?
        /// The upper end of the video bitrate range.
        public var maximumVideoBitrate: Int?
        /// Audio bitrate ceiling, bits per second.
        public var maximumAudioBitrate: Int?
        /// Longest playout delay, milliseconds.
        public var maximumDelay: Int?
        /// The most pixels per second the decoder takes (`maxPixelsPerSecond`;
        /// Open Screen receiver_constraints.h defaults it to 1920×1080×30).
        public var maximumPixelsPerSecond: Double?

        /// Creates constraints.
        public init(
            maximumResolution: RemoteDisplayConfiguration.Resolution? = nil, maximumFrameRate: Int? = nil,
            minimumVideoBitrate: Int? = nil, maximumVideoBitrate: Int? = nil, maximumAudioBitrate: Int? = nil,
            maximumDelay: Int? = nil, maximumPixelsPerSecond: Double? = nil
        ) {
            self.maximumResolution = maximumResolution
            self.maximumFrameRate = maximumFrameRate
            self.minimumVideoBitrate = minimumVideoBitrate
            self.maximumVideoBitrate = maximumVideoBitrate
            self.maximumAudioBitrate = maximumAudioBitrate
            self.maximumDelay = maximumDelay
            self.maximumPixelsPerSecond = maximumPixelsPerSecond
        }
    }

    /// The ANSWER's `display`: the screen the receiver shows frames on
    /// (Open Screen answer_messages.cc:401-417 writes it).
    public struct Display: Sendable, Hashable {
        /// Who fits frames to the display.
        public enum Scaling: String, Sendable, Hashable {
            /// The sender must send the display's shape (letterboxing).
            case sender
            /// The receiver scales whatever arrives.
            case receiver
        }

        /// The display's width, pixels.
        public var width: Int
        /// The display's height, pixels.
        public var height: Int
        /// Its frame rate, written as a string as receivers do (conformance 073).
        public var frameRate: Int
        /// `aspectRatio` as "W:H", when the receiver sends one.
        public var aspectRatio: (width: Int, height: Int)?
        /// `scaling`.
        public var scaling: Scaling

        /// Creates a display.
        public init(
            width: Int, height: Int, frameRate: Int, aspectRatio: (width: Int, height: Int)? = nil,
            scaling: Scaling
        ) {
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.aspectRatio = aspectRatio
            self.scaling = scaling
        }

        public static func == (lhs: Display, rhs: Display) -> Bool {
            lhs.width == rhs.width && lhs.height == rhs.height && lhs.frameRate == rhs.frameRate
                && lhs.aspectRatio?.width == rhs.aspectRatio?.width
                && lhs.aspectRatio?.height == rhs.aspectRatio?.height && lhs.scaling == rhs.scaling
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(self.width)
            hasher.combine(self.height)
            hasher.combine(self.frameRate)
            hasher.combine(self.aspectRatio?.width)
            hasher.combine(self.aspectRatio?.height)
            hasher.combine(self.scaling)
        }
    }

    /// The luma plane (width × height bytes, no padding) of the picture the
    /// sender captured at a time, for PSNR; `nil` when the time matches no frame.
    public typealias VideoReference = @Sendable (HostTime) -> [UInt8]?

    /// How OFFERs are answered. Default ``AnswerPolicy/accept``.
    public var answer: AnswerPolicy
    /// Constraints sent in the ANSWER, if any.
    public var constraints: Constraints?
    /// The `display` sent in the ANSWER, if any.
    public var display: Display?
    /// Impairment of the sender→receiver UDP path. Default: none.
    public var impairment: NetworkImpairment
    /// Pictures to compare decoded frames with, if the test has them.
    public var videoReference: VideoReference?
    /// Sees every decoded picture and sound, with its capture time: for
    /// tests that read what a picture carries (a frame number, a time) or
    /// analyse the sound. Called on the receiver's thread; keep it short.
    package var observer = DecodedMediaObserver()
    /// The video codecs this receiver takes, most preferred first: of the
    /// offered video streams it picks the first whose codec comes first
    /// here, as Open Screen's `SelectStream` does (receiver_session.cc:32-50).
    /// Default `[.vp8]`, Open Screen's library default (receiver_constraints.h:150-155).
    public var videoCodecs: [VideoCodec]
    /// Whether to decode frames (libvpx, libopus). Default `true`; off, the
    /// receiver still reassembles, decrypts and acknowledges — a cheaper
    /// peer for benchmarks of the sender.
    public var decodes: Bool
    /// How long after its ANSWER a session may go without a single packet
    /// before the receiver stops the app; `nil` (the default) never. Google's
    /// receivers do, after 15 s (the SDK's Remote Display guide: "an app has
    /// 15 seconds to send a frame, otherwise the session times out"; the
    /// Remote Display session reference: receivers "terminate the
    /// session"), so their profiles set it; Open Screen's receiver has no
    /// such timer (receiver_session.cc, receiver.cc: only the RTCP report
    /// timer), so its profile does not.
    public var firstFrameDeadline: Duration?

    /// Creates a configuration.
    public init(
        answer: AnswerPolicy = .accept, constraints: Constraints? = nil, display: Display? = nil,
        impairment: NetworkImpairment = NetworkImpairment(),
        videoReference: VideoReference? = nil, videoCodecs: [VideoCodec] = [.vp8], decodes: Bool = true,
        firstFrameDeadline: Duration? = nil
    ) {
        self.firstFrameDeadline = firstFrameDeadline
        self.videoCodecs = videoCodecs
        self.answer = answer
        self.constraints = constraints
        self.display = display
        self.impairment = impairment
        self.videoReference = videoReference
        self.decodes = decodes
    }
}

/// Impairment the emulator applies to datagrams from the sender, with a
/// seeded random generator so a run repeats: loss (random and in bursts),
/// reordering, delay with jitter, and a bandwidth cap with a bounded queue;
/// and a delay of what it sends back (the way back of a longer link).
/// This host's kernel has no `netem`; the emulator plays the network.
public struct NetworkImpairment: Sendable, Hashable {
    /// Probability that a datagram starts a loss, 0…1.
    public var lossRate: Double
    /// Datagrams lost in a row once a loss starts (1 = independent losses).
    public var burstLength: Int
    /// Probability that a datagram is held back behind later ones, 0…1.
    public var reorderRate: Double
    /// Fixed one-way delay.
    public var delay: Duration
    /// Extra delay, uniform in 0…jitter, per datagram (it reorders too).
    public var jitter: Duration
    /// Link rate, bits per second; `nil` for none. Datagrams queue behind
    /// each other at this rate; past ``queueLimit`` of backlog they are dropped.
    public var bandwidthLimit: Int?
    /// The longest backlog the capped link holds.
    public var queueLimit: Duration
    /// Seed of the random generator.
    public var seed: UInt64
    /// Fixed delay of the receiver's own datagrams (RTCP feedback) on their
    /// way back: with ``delay``, a link longer both ways, as real ones are;
    /// ``delay`` alone is a one-way, asymmetric one.
    public var returnDelay: Duration

    /// Creates an impairment; the default impairs nothing.
    public init(
        lossRate: Double = 0, burstLength: Int = 1, reorderRate: Double = 0, delay: Duration = .zero,
        jitter: Duration = .zero, bandwidthLimit: Int? = nil, queueLimit: Duration = .milliseconds(250),
        seed: UInt64 = 1, returnDelay: Duration = .zero
    ) {
        self.lossRate = lossRate
        self.burstLength = burstLength
        self.reorderRate = reorderRate
        self.delay = delay
        self.jitter = jitter
        self.bandwidthLimit = bandwidthLimit
        self.queueLimit = queueLimit
        self.seed = seed
        self.returnDelay = returnDelay
    }
}

/// What a test sees of the emulator's decoded media (see ``StreamingReceiverConfiguration/observer``).
package struct DecodedMediaObserver: Sendable {
    /// A decoded picture and the sender's capture time of it (`nil` before the first Sender Report).
    package var picture: (@Sendable (HostTime?, DecodedPicture) -> Void)?
    /// Decoded sound, interleaved, with its channel count and capture time.
    package var sound: (@Sendable (HostTime?, [Float], Int) -> Void)?
    /// A decoded sound frame's capture time (the sender's, through the last
    /// Sender Report) and when this receiver plays it (its clock): the
    /// capture time moved by the measured clock offset, plus the playout
    /// delay — Open Screen's receiver_impl.cc estimates a frame's capture
    /// time the same way (the last report's reference time, plus the
    /// smoothed offset arrival − reference time, plus the RTP delta) and
    /// plays it the target delay after. What several devices fed one sound
    /// are compared by.
    package var soundPlayout: (@Sendable (_ capture: HostTime, _ playout: HostTime) -> Void)?

    package init() {}
}
