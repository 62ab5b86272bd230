@_spi(Receiver) public import CastTransport

/// How a ``CastEmulator`` listens and presents itself.
public struct CastEmulatorConfiguration: Sendable {
    /// The address to listen on. Default `127.0.0.1`: the emulator stays on this machine.
    public var host: String
    /// The port; 0 (the default) picks a free one, read back from ``CastEmulator/port``.
    public var port: Int
    /// The receiver's heartbeat towards senders. Default: Chrome's 5 s / 10 s.
    public var heartbeat: HeartbeatConfiguration
    /// How the TLS certificate is dated. Default ``TLSCertificateValidity/valid``.
    public var tlsCertificateValidity: TLSCertificateValidity
    /// The device-auth chain; `nil` (the default) uses ``ReceiverIdentity/shared()``.
    public var identity: ReceiverIdentity?
    /// The name in the TLS certificate and logs.
    public var name: String
    /// The kind of receiver it plays. Default ``ReceiverProfile/chromecastWithGoogleTV``.
    public var profile: ReceiverProfile
    /// The apps the receiver can launch. Default: the profile's (for the
    /// default profile the Default Media Receiver, mirroring, audio
    /// mirroring and the Backdrop idle screen).
    public var applications: [EmulatedApplication]
    /// The time the media player runs on. Default: the machine's clock.
    public var mediaClock: EmulatorMediaClock
    /// Whether the media player fetches what it is told to play, as a
    /// receiver does: HEAD and the first bytes at a LOAD (a source it
    /// cannot fetch, or of a type Cast devices do not play, fails the LOAD
    /// with LOAD_FAILED 104), the part sought to at a SEEK. Default `false`:
    /// tests that load made-up URLs must not reach the network.
    public var fetchesMedia: Bool

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        heartbeat: HeartbeatConfiguration = HeartbeatConfiguration(),
        tlsCertificateValidity: TLSCertificateValidity = .valid,
        identity: ReceiverIdentity? = nil,
        name: String = "Cast Emulator",
        profile: ReceiverProfile = .chromecastWithGoogleTV,
        applications: [EmulatedApplication]? = nil,
        mediaClock: EmulatorMediaClock = .system(),
        fetchesMedia: Bool = false
    ) {
        self.fetchesMedia = fetchesMedia
        self.profile = profile
        self.host = host
        self.port = port
        self.heartbeat = heartbeat
        self.tlsCertificateValidity = tlsCertificateValidity
        self.identity = identity
        self.name = name
        self.applications = applications ?? profile.applications
        self.mediaClock = mediaClock
    }
}
