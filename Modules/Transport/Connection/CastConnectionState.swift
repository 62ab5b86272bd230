/// Where a ``CastConnection`` is in its life. It moves forward only:
/// idle → connecting → connected → (authenticated) → disconnected.
public enum CastConnectionState: Sendable, CustomStringConvertible {
    /// Created; `connect()` not called yet.
    case idle
    /// TCP and TLS are being set up.
    case connecting
    /// The TLS connection is up; messages can be sent.
    case connected
    /// The receiver passed device authentication.
    case authenticated
    /// The connection has ended, for this reason (``CastTransportError/Code/closed`` when the app closed it).
    case disconnected(CastTransportError)

    /// Whether messages can be sent.
    public var isConnected: Bool {
        switch self {
        case .connected, .authenticated: true
        case .idle, .connecting, .disconnected: false
        }
    }

    /// A one-line description for logs.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting: "connecting"
        case .connected: "connected"
        case .authenticated: "authenticated"
        case .disconnected(let reason): "disconnected(\(reason.code))"
        }
    }
}
