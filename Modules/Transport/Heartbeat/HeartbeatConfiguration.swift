/// How a side of the connection watches the other for liveness
/// (Docs/spec/castv2-control.md §4, heartbeat; Chrome's values are the defaults).
public struct HeartbeatConfiguration: Sendable, Hashable {
    /// Inbound silence after which a PING is sent. Default 5 s.
    public var pingInterval: Duration
    /// Inbound silence after which the peer is declared dead and the socket
    /// closed with ``CastTransportError/Code/heartbeatTimedOut``. Default 10 s.
    public var timeout: Duration

    /// Creates a configuration; `timeout` should exceed `pingInterval` so a
    /// PING has time to be answered.
    public init(pingInterval: Duration = .seconds(5), timeout: Duration = .seconds(10)) {
        self.pingInterval = pingInterval
        self.timeout = timeout
    }
}
