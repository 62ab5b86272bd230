/// Misbehaviour the emulator can be told to show, changed at any time
/// through ``CastEmulator/faults``. The default is a well-behaved receiver.
public struct EmulatorFaults: Sendable, Hashable {
    /// When `true` the receiver neither answers nor sends PINGs, like a hung
    /// device: a sender's heartbeat timeout must fire.
    public var isHeartbeatSilenced: Bool
    /// How the receiver answers a device-auth challenge.
    public var deviceAuthentication: DeviceAuthFault

    /// Creates fault settings; the defaults are no faults.
    public init(isHeartbeatSilenced: Bool = false, deviceAuthentication: DeviceAuthFault = .none) {
        self.isHeartbeatSilenced = isHeartbeatSilenced
        self.deviceAuthentication = deviceAuthentication
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
    /// With a different nonce than the challenge's.
    case wrongNonce
    /// With a signature made by a key that is not the device certificate's.
    case wrongSigningKey
}
