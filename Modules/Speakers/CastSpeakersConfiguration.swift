public import CastChannels
public import CastDiscovery
public import CastTransport

/// How ``CastSpeakers`` makes sinks and streams to them.
public struct CastSpeakersConfiguration: Sendable {
    /// The sound server, e.g. `unix:/run/user/1000/pulse/native`; `nil`
    /// uses libpulse's default (`PULSE_SERVER`, then the user's server).
    public var soundServer: String?
    /// How long a silent sink keeps its device's stream: a pause between
    /// songs keeps it, a desktop gone quiet ends it. 1 s…1 h; default 15 s.
    public var gracePeriod: Duration
    /// The Opus bitrate, bit/s. 6 000…510 000; default 128 000.
    public var bitrate: Int
    /// How long after capture the devices play the sound. Default 400 ms.
    public var targetDelay: Duration
    /// Which devices get a sink; default every device with a sound output
    /// (`CastDeviceCapabilities.audioOut`), speaker groups included.
    public var includes: @Sendable (CastDevice) -> Bool
    /// Groups of devices, each a sink of its own that plays to all its
    /// members present at once (besides each member's own sink).
    public var groups: [CastSpeakersGroup]
    /// The connections' settings (device authentication among them).
    public var connection: CastConnectionConfiguration
    /// Makes the connections to the devices; over the network by default.
    public var connectionFactory: CastConnectionFactory
    /// When a device's stream is tried again after it failed or ended while
    /// sound plays: by default 1 s, doubling to a minute, without end (the
    /// device may come back); the count starts afresh once a stream has
    /// played 30 s, and at the next sound after silence.
    public var retryPolicy: ReconnectPolicy
    /// The clock the grace period and the retries run on.
    public var clock: any Clock<Duration>

    /// Creates a configuration.
    public init(
        soundServer: String? = nil, gracePeriod: Duration = .seconds(15), bitrate: Int = 128_000,
        targetDelay: Duration = .milliseconds(400),
        includes: @escaping @Sendable (CastDevice) -> Bool = { $0.capabilities.contains(.audioOut) },
        groups: [CastSpeakersGroup] = [],
        connection: CastConnectionConfiguration = CastConnectionConfiguration(),
        connectionFactory: CastConnectionFactory = .network,
        retryPolicy: ReconnectPolicy = ReconnectPolicy(
            initialDelay: .seconds(1), maximumDelay: .seconds(60), jitter: 0.2, maximumAttempts: nil),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.soundServer = soundServer
        self.gracePeriod = gracePeriod
        self.bitrate = bitrate
        self.targetDelay = targetDelay
        self.includes = includes
        self.groups = groups
        self.connection = connection
        self.connectionFactory = connectionFactory
        self.retryPolicy = retryPolicy
        self.clock = clock
    }

    /// Checks the ranges.
    func validate() throws(SpeakersError) {
        guard self.gracePeriod >= .seconds(1), self.gracePeriod <= .seconds(3_600) else {
            throw SpeakersError(.invalidConfiguration, "a grace period of \(self.gracePeriod) is outside 1 s…1 h")
        }
        guard (6_000...510_000).contains(self.bitrate) else {
            throw SpeakersError(
                .invalidConfiguration, "an Opus bitrate of \(self.bitrate) bit/s is outside 6…510 kbit/s")
        }
        guard self.targetDelay > .zero, self.targetDelay <= .seconds(5) else {
            throw SpeakersError(.invalidConfiguration, "a target delay of \(self.targetDelay) is outside 0…5 s")
        }
        for group in self.groups where group.name.isEmpty || group.members.isEmpty {
            throw SpeakersError(.invalidConfiguration, "a group needs a name and members: \(group)")
        }
        let names = self.groups.map { CastSpeakers.sinkName(for: $0) }
        guard Set(names).count == names.count else {
            throw SpeakersError(.invalidConfiguration, "two groups would share a sink name: \(names)")
        }
    }
}
