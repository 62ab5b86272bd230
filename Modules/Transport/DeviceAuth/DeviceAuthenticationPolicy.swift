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
    /// The certificates a device's revocation list must be signed under
    /// (its signer issued directly by one of them). Default: Google's
    /// ``CastRootCertificates/castCRLRootCA``.
    public var revocationTrustAnchors: [Certificate]
    /// Whether a device must send a revocation list that verifies. Default
    /// `false`, as in Chrome (`CastCertificateRevocation` is off by default
    /// in cast_auth_util.cc, and Open Screen's `AuthenticateChallengeReply`
    /// uses `CRLPolicy::kCrlOptional`).
    ///
    /// Either way a list the device sends that verifies is enforced, as
    /// Chrome's default policy (`CRL_OPTIONAL_WITH_FALLBACK`) does: a
    /// device whose certificate, intermediate or root is revoked by it fails
    /// with ``CastTransportError/Code/certificateRevoked``. When `false`, a
    /// device that sends no list, or one that does not verify, is verified
    /// without it (``VerifiedDevice/revocation`` says so). Chrome then
    /// checks the chain against a list built into the browser, which it
    /// treats as valid for 20 weeks after the build; this SDK carries none.
    /// When `true`, such a device fails with
    /// ``CastTransportError/Code/revocationListInvalid``.
    public var requiresRevocationList: Bool

    /// Creates a policy.
    public init(
        requirement: Requirement, trustAnchors: [Certificate] = [], timeout: Duration = .seconds(5),
        requiresNonce: Bool = false,
        revocationTrustAnchors: [Certificate] = CastRootCertificates.revocationRoots,
        requiresRevocationList: Bool = false
    ) {
        self.requirement = requirement
        self.trustAnchors = trustAnchors
        self.timeout = timeout
        self.requiresNonce = requiresNonce
        self.revocationTrustAnchors = revocationTrustAnchors
        self.requiresRevocationList = requiresRevocationList
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
