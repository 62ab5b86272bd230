public import CastDiscovery
public import CastTransport

/// A session's lifecycle, as every listener of ``SessionManager/events()``
/// sees it — the SDK's `GCKSessionManagerListener` callbacks.
public enum SessionEvent: Sendable {
    /// A session is starting on its device.
    case starting(CastSession)
    /// The session started: the app runs and its channels are attached.
    case started(CastSession)
    /// The session could not start.
    case failedToStart(CastSession, CastSessionError)
    /// The connection was lost (or the app left the device); the manager is trying to get it back.
    case suspended(CastSession, reason: SessionSuspendReason)
    /// A suspended session is reconnecting (or a saved session is being resumed).
    case resuming(CastSession)
    /// The session is back, on `device` — another device than before after stream transfer.
    case resumed(CastSession, device: CastDevice)
    /// The session is ending.
    case ending(CastSession)
    /// The session ended.
    case ended(CastSession, reason: SessionEndReason)
}

/// Why a session was suspended.
public enum SessionSuspendReason: Sendable {
    /// The connection was lost: the socket closed or failed.
    case connectionLost(CastTransportError)
    /// The receiver stopped answering heartbeats (asleep, or off the network).
    case heartbeatTimedOut
    /// The app left the device, and runs on another (stream transfer).
    case applicationMoved
    /// The machine is going to sleep (``SessionManager/suspendForSleep()``);
    /// the session reconnects when it wakes.
    case systemSleep
}

/// Why a session ended.
public enum SessionEndReason: Sendable {
    /// The app ended it.
    case requested
    /// The receiver app stopped (another sender or the receiver stopped it).
    case applicationStopped
    /// Reconnecting failed as many times as the policy allows.
    case reconnectFailed(CastSessionError)
    /// A new session replaced it.
    case replaced
}
