@_spi(Receiver) public import CastTransport

/// What the emulator observed, for tests and logs: every sender socket,
/// virtual connection and message, in order per socket.
public enum EmulatorEvent: Sendable, Hashable {
    /// A sender connected; `connectionID` numbers sockets from 1.
    case connectionOpened(connectionID: Int)
    /// A sender's socket closed.
    case connectionClosed(connectionID: Int)
    /// A sender sent CONNECT from `sourceID` to `destinationID`.
    case virtualConnectionOpened(
        connectionID: Int, sourceID: String, destinationID: String, type: VirtualConnectionType)
    /// A virtual connection closed: the sender sent CLOSE, or the emulator did.
    case virtualConnectionClosed(connectionID: Int, sourceID: String, destinationID: String)
    /// A message passed the virtual-connection check (platform namespaces always do).
    case messageReceived(connectionID: Int, message: CastMessage)
    /// A message was dropped because no virtual connection joins its source and destination.
    case messageDropped(connectionID: Int, message: CastMessage)
    /// The emulator answered (or, by fault, ignored) a device-auth challenge.
    case deviceAuthChallengeReceived(connectionID: Int)
    /// A Remote Display stream ended (its app stopped, a new OFFER replaced
    /// it, or the emulator stopped), with what the receiver measured.
    case streamingEnded(StreamingReport)
}
