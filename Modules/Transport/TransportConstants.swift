/// Literal protocol values of the control channel, each with its unit and
/// reason (Docs/spec/castv2-control.md).
@_spi(Receiver) public enum TransportConstants {
    /// Largest serialized `CastMessage` body, bytes (§2): a larger length
    /// prefix is invalid and closes the socket.
    @_spi(Receiver) public static let maximumBodyLength = 65_536
    /// The length prefix, bytes: a big-endian `UInt32` (§2).
    @_spi(Receiver) public static let lengthPrefixSize = 4
    /// Sender ids are `sender-<n>` with a random `n` per socket (§3); this
    /// bounds `n` so ids stay short.
    @_spi(Receiver) public static let senderIDRange: ClosedRange<UInt32> = 1...999_999
    /// Sender nonce length in a device-auth challenge, bytes (§2: Chrome sends 16).
    @_spi(Receiver) public static let nonceLength = 16
    /// How far ahead a receiver's TLS certificate may expire, seconds (§2:
    /// receivers rotate it; Chrome rejects certificates that live longer than 4 days).
    @_spi(Receiver) public static let maximumPeerCertificateLifetime: Double = 4 * 24 * 60 * 60
}

/// The platform namespaces the transport itself speaks (§2–§4).
@_spi(Receiver) public enum TransportNamespace {
    /// Virtual connections: CONNECT / CLOSE.
    @_spi(Receiver) public static let connection = "urn:x-cast:com.google.cast.tp.connection"
    /// Heartbeat: PING / PONG.
    @_spi(Receiver) public static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    /// Device authentication: binary `DeviceAuthMessage`.
    @_spi(Receiver) public static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    /// Platform namespaces start with this and need no virtual connection (§3).
    @_spi(Receiver) public static let platformPrefix = "urn:x-cast:com.google.cast.tp."
}
