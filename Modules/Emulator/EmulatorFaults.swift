/// Misbehaviour the emulator can be told to show, changed at any time
/// through ``CastEmulator/faults``. The default is a well-behaved receiver.
public struct EmulatorFaults: Sendable, Hashable {
    /// When `true` the receiver neither answers nor sends PINGs, like a hung
    /// device: a sender's heartbeat timeout must fire.
    public var isHeartbeatSilenced: Bool
    /// How the receiver answers a device-auth challenge.
    public var deviceAuthentication: DeviceAuthFault
    /// How the receiver answers LAUNCH.
    public var launch: LaunchFault
    /// How long replies in the receiver namespace wait before they are sent. Default zero.
    public var receiverReplyDelay: Duration
    /// When `true`, requests in the receiver namespace take effect but get no reply.
    public var dropsReceiverReplies: Bool
    /// Media whose LOAD fails with LOAD_FAILED (detailed error 104), by the
    /// end of its `contentUrl` or `contentId` (a whole URL, or a file name
    /// a server serves under a path of its own). The reply is a real
    /// receiver's (../shared/conformance 056); which media fail is this fault's.
    public var failingContentIDs: Set<String>
    /// Media that stays BUFFERING once loaded, as on a receiver that cannot
    /// fetch it fast enough, by the end of its `contentUrl` or `contentId`
    /// (a whole URL, or a file name a server serves under a path of its own).
    /// A real Chromecast reports BUFFERING so (../shared/conformance
    /// 034-media-status-chromecast.json); how long it lasts is this fault's.
    public var stallingContentIDs: Set<String>
    /// Media that buffers, then ends IDLE with idle reason ERROR, as when a
    /// receiver's decoder fails on it, by the end of its `contentUrl` or
    /// `contentId`. The status is the one real receivers send (../shared/conformance
    /// 041-media-status-chromecast.json, 047-media-status-speaker-group.json).
    public var erroringContentIDs: Set<String>

    /// Creates fault settings; the defaults are no faults.
    public init(
        isHeartbeatSilenced: Bool = false,
        deviceAuthentication: DeviceAuthFault = .none,
        launch: LaunchFault = .none,
        receiverReplyDelay: Duration = .zero,
        dropsReceiverReplies: Bool = false,
        failingContentIDs: Set<String> = [],
        stallingContentIDs: Set<String> = [],
        erroringContentIDs: Set<String> = []
    ) {
        self.isHeartbeatSilenced = isHeartbeatSilenced
        self.deviceAuthentication = deviceAuthentication
        self.launch = launch
        self.receiverReplyDelay = receiverReplyDelay
        self.dropsReceiverReplies = dropsReceiverReplies
        self.failingContentIDs = failingContentIDs
        self.stallingContentIDs = stallingContentIDs
        self.erroringContentIDs = erroringContentIDs
    }
}

/// How the emulator answers a device-auth challenge.
public enum DeviceAuthFault: Sendable, Hashable {
    /// Correctly.
    case none
    /// Not at all.
    case noReply
    /// With an `AuthError` (`INTERNAL_ERROR`).
    case errorReply
    /// With bytes that are not a `DeviceAuthMessage`.
    case malformedReply
    /// With a different nonce than the challenge's, signed (a replayed reply).
    case wrongNonce
    /// With no nonce, the signature over the TLS certificate alone: a legacy
    /// receiver, which Chrome accepts (cast_auth_util.cc: "the nonce can be
    /// empty and omitted from the signature").
    case emptyNonce
    /// With a signature made by a key that is not the device certificate's.
    case wrongSigningKey
}

/// How the emulator answers LAUNCH.
public enum LaunchFault: Sendable, Hashable {
    /// It launches the app, or answers NOT_FOUND for an unknown one.
    case none
    /// With LAUNCH_ERROR and this `reason` (`CANCELLED`, `BAD_PARAMETER`,
    /// `NOT_FOUND`, `SYSTEM_ERROR`, …) and optional `extendedError`; nothing launches.
    case error(reason: String, extendedError: String? = nil)
    /// With LAUNCH_STATUS `USER_PENDING_AUTHORIZATION`, then `USER_ALLOWED`, then the launch
    /// (both keyed by `launchRequestId`).
    case requiresAuthorization
    /// Not at all; nothing launches (the sender's launch timeout must fire).
    case noReply
}
