public import X509

/// Whether and how a connection checks that the receiver is a genuine Cast
/// device (Docs/spec/castv2-control.md §2, device authentication).
///
/// The TLS layer accepts the receiver's self-signed certificate; this check
/// is the real trust decision, as in Chrome, which verifies every device
/// against Google's Cast roots. The default, ``verifying``, checks every
/// device against ``CastRootCertificates`` and reports the result
/// (``CastConnection/verifiedDevice``, ``CastConnection/authenticationFailure``)
/// without refusing; ``required(trusting:)`` refuses unverified devices;
/// ``off`` sends no challenge. Add `CastEmulator`'s test root to the anchors
/// to verify the emulator.
public struct DeviceAuthenticationPolicy: Sendable {
    /// What a failed check does.
    public enum Requirement: Sendable, Hashable {
        /// The check must pass; a failure closes the connection with its typed error.
        case required
        /// The check runs; a failure is logged and recorded, and the connection stays up.
        case optional
        /// No challenge is sent.
        case off
    }

    /// What a failed check does.
    public var requirement: Requirement
    /// The certificates a device certificate must chain to.
    public var trustAnchors: [Certificate]
    /// How long to wait for the device's reply. Default 5 s.
    public var timeout: Duration
    /// Whether the reply must echo this connection's nonce. Default `false`,
    /// as in Chrome (`kEnforceNonceChecking` is off by default in
    /// cast_auth_util.cc `AuthContext::VerifySenderNonce`; Open Screen's
    /// cast_auth_util.h:40-41 defaults `enforce_nonce_checking` to false):
    /// legacy receivers echo no nonce, and the signature is checked over the
    /// nonce the device did echo. `true` also refuses an empty or different
    /// nonce, which resists a replayed signature.
    public var requiresNonce: Bool

    /// Creates a policy.
    public init(
        requirement: Requirement, trustAnchors: [Certificate] = [], timeout: Duration = .seconds(5),
        requiresNonce: Bool = false
    ) {
        self.requirement = requirement
        self.trustAnchors = trustAnchors
        self.timeout = timeout
        self.requiresNonce = requiresNonce
    }

    /// No device authentication (what pychromecast and most open clients do).
    public static let off = DeviceAuthenticationPolicy(requirement: .off)

    /// The default: every device is checked against Google's Cast roots and
    /// the result reported; an unverified device is still used.
    public static let verifying = DeviceAuthenticationPolicy(
        requirement: .optional, trustAnchors: CastRootCertificates.all)

    /// Device authentication that must pass, with these anchors.
    public static func required(trusting anchors: [Certificate]) -> DeviceAuthenticationPolicy {
        DeviceAuthenticationPolicy(requirement: .required, trustAnchors: anchors)
    }

    /// Device authentication whose failure is only logged, with these anchors.
    public static func optional(trusting anchors: [Certificate]) -> DeviceAuthenticationPolicy {
        DeviceAuthenticationPolicy(requirement: .optional, trustAnchors: anchors)
    }
}
