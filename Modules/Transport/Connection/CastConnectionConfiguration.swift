/// How a ``CastConnection`` connects and behaves. The defaults are Chrome's
/// (Docs/spec/castv2-control.md §7).
public struct CastConnectionConfiguration: Sendable {
    /// The longest TCP connect plus TLS handshake. Default 10 s.
    public var connectTimeout: Duration
    /// Heartbeat intervals. Default: PING after 5 s of silence, dead after 10 s.
    public var heartbeat: HeartbeatConfiguration
    /// Device authentication. Default off (no Cast roots are bundled).
    public var deviceAuthentication: DeviceAuthenticationPolicy
    /// Most messages waiting to be written; a send beyond it fails with
    /// ``CastTransportError/Code/sendBufferFull``. Default 256.
    public var outboundQueueLimit: Int
    /// Most unread messages buffered per subscriber before the newest are
    /// dropped (and logged). Default 1024.
    public var inboundBufferLimit: Int
    /// Who the sender is, sent in every CONNECT.
    public var sender: SenderInfo
    /// The clock the device-authentication reply waits on
    /// (``DeviceAuthenticationPolicy/timeout``). Default: `ContinuousClock`;
    /// tests pass one they advance themselves. The connect timeout and the
    /// heartbeat run on the event loop's time.
    public var clock: any Clock<Duration>

    /// Creates a configuration.
    public init(
        connectTimeout: Duration = .seconds(10),
        heartbeat: HeartbeatConfiguration = HeartbeatConfiguration(),
        deviceAuthentication: DeviceAuthenticationPolicy = .verifying,
        outboundQueueLimit: Int = 256,
        inboundBufferLimit: Int = 1024,
        sender: SenderInfo = SenderInfo(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.connectTimeout = connectTimeout
        self.heartbeat = heartbeat
        self.deviceAuthentication = deviceAuthentication
        self.outboundQueueLimit = max(outboundQueueLimit, 1)
        self.inboundBufferLimit = max(inboundBufferLimit, 1)
        self.sender = sender
        self.clock = clock
    }
}
