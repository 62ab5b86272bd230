public import CastChannels
public import CastTransport

/// What happens to the control connection of an ``AudioCastSession``
/// started through a `CastDeviceLink`.
public enum AudioCastSessionEvent: Sendable {
    /// The connection dropped; the sound waits while the device is connected again.
    case reconnecting
    /// Connected again: the same stream goes on over `link` (the app's
    /// session and the stream's keys are the same; nothing was launched).
    case reconnected(CastDeviceLink)
    /// The device did not come back within the reconnect policy's attempts:
    /// the session ended with ``RemoteDisplaySessionEndReason/connectionLost``.
    case reconnectionFailed(CastTransportError)
}
