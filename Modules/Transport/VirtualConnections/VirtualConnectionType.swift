/// How strongly a virtual connection binds the sender to its destination
/// (`connType` in CONNECT, Docs/spec/castv2-control.md §3).
public enum VirtualConnectionType: Int, Sendable, Hashable, Codable {
    /// A normal sender; use it for `receiver-0` (LAUNCH is not accepted from
    /// invisible connections).
    case strong = 0
    /// A weak connection.
    case weak = 1
    /// A connection other senders do not see; Chrome uses it for app transports.
    case invisible = 2
}

/// Why a virtual connection closed (`reasonCode` in CLOSE, §3).
public enum VirtualConnectionCloseReason: Int, Sendable, Hashable, Codable {
    /// No reason given, or one this implementation does not know.
    case unknown = 0
    /// The transport closed.
    case transportClosed = 1
    /// The transport aborted.
    case transportAborted = 2
    /// A message on the connection was invalid.
    case invalidMessage = 3
    /// The connection was idle too long.
    case tooLongInactive = 4
    /// The side that sent CLOSE closed it itself.
    case closedBySelf = 5
    /// The side that sent CLOSE was closed by its peer.
    case closedByPeer = 6
}

/// A change to one of this connection's virtual connections.
public enum VirtualConnectionEvent: Sendable, Hashable {
    /// CONNECT was sent to `destinationID`.
    case opened(destinationID: String)
    /// The app closed the virtual connection to `destinationID`.
    case closed(destinationID: String)
    /// The receiver sent CLOSE for `destinationID` (for an app transport:
    /// the app went away or dropped this sender).
    case closedByPeer(destinationID: String, reason: VirtualConnectionCloseReason)
}
