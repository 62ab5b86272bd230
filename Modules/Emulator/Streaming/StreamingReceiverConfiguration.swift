public import CastRemoteDisplay

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

        /// Creates constraints.
        public init(
            maximumResolution: RemoteDisplayConfiguration.Resolution? = nil, maximumFrameRate: Int? = nil,
            minimumVideoBitrate: Int? = nil, maximumVideoBitrate: Int? = nil, maximumAudioBitrate: Int? = nil,
            maximumDelay: Int? = nil
        ) {
            self.maximumResolution = maximumResolution
            self.maximumFrameRate = maximumFrameRate
            self.minimumVideoBitrate = minimumVideoBitrate
            self.maximumVideoBitrate = maximumVideoBitrate
            self.maximumAudioBitrate = maximumAudioBitrate
            self.maximumDelay = maximumDelay
        }
    }

    /// The luma plane (width × height bytes, no padding) of the picture the
    /// sender captured at a time, for PSNR; `nil` when the time matches no frame.
    public typealias VideoReference = @Sendable (HostTime) -> [UInt8]?

    /// How OFFERs are answered. Default ``AnswerPolicy/accept``.
    public var answer: AnswerPolicy
    /// Constraints sent in the ANSWER, if any.
    public var constraints: Constraints?
    /// Impairment of the sender→receiver UDP path. Default: none.
    public var impairment: NetworkImpairment
    /// Pictures to compare decoded frames with, if the test has them.
    public var videoReference: VideoReference?
    /// Whether to decode frames (libvpx, libopus). Default `true`; off, the
    /// receiver still reassembles, decrypts and acknowledges — a cheaper
    /// peer for benchmarks of the sender.
    public var decodes: Bool

    /// Creates a configuration.
    public init(
        answer: AnswerPolicy = .accept, constraints: Constraints? = nil,
        impairment: NetworkImpairment = NetworkImpairment(),
        videoReference: VideoReference? = nil, decodes: Bool = true
    ) {
        self.answer = answer
        self.constraints = constraints
        self.impairment = impairment
        self.videoReference = videoReference
        self.decodes = decodes
    }
}

/// Impairment the emulator applies to datagrams from the sender, with a
/// seeded random generator so a run repeats: loss (random and in bursts),
/// reordering, delay with jitter, and a bandwidth cap with a bounded queue.
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

    /// Creates an impairment; the default impairs nothing.
    public init(
        lossRate: Double = 0, burstLength: Int = 1, reorderRate: Double = 0, delay: Duration = .zero,
        jitter: Duration = .zero, bandwidthLimit: Int? = nil, queueLimit: Duration = .milliseconds(250),
        seed: UInt64 = 1
    ) {
        self.lossRate = lossRate
        self.burstLength = burstLength
        self.reorderRate = reorderRate
        self.delay = delay
        self.jitter = jitter
        self.bandwidthLimit = bandwidthLimit
        self.queueLimit = queueLimit
        self.seed = seed
    }
}
