/// The endpoint ids every Cast receiver and sender use on the control
/// channel (Docs/spec/castv2-control.md §3), shared by the sender's modules
/// and the receiver emulator.
public enum CastEndpointID {
    /// The receiver's platform endpoint: the receiver namespace's requests
    /// (launch, stop, status, volume) go to it.
    public static let receiverPlatform = "receiver-0"
    /// The sender's platform endpoint, the source and destination of the
    /// heartbeat and device authentication, which need no virtual
    /// connection (§2, §4).
    public static let senderPlatform = "sender-0"
    /// The destination of a broadcast to every sender (§3).
    public static let broadcast = "*"
}
