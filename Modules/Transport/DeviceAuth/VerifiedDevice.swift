/// What a device's certificate chain says once it verified against the
/// trust anchors: the device is a genuine Cast device of that line.
public struct VerifiedDevice: Sendable, Hashable {
    /// The device certificate's common name: an identifier the device was
    /// made with (Open Screen's tests expect values such as
    /// `"2ZZBG9 FA8FCA3EF91A"`), not its friendly name.
    public var commonName: String?
    /// The common names of the certificates between the device and the root,
    /// nearest first. They name the product line (a model family) the
    /// device certificate was issued to.
    public var issuerCommonNames: [String]
    /// Whether a certificate of the chain carries Cast's audio-only policy
    /// (1.3.6.1.4.1.11129.2.5.2): a speaker, which takes no video
    /// (Open Screen cast_cert_validator.cc:23-58).
    public var isAudioOnly: Bool
    /// What the device's certificate revocation list contributed.
    public var revocation: RevocationCheck

    /// What a device's certificate revocation list contributed to its verification.
    public enum RevocationCheck: Sendable, Hashable {
        /// The device sent a list that verified, and it revokes no certificate of the chain.
        case passed
        /// The device sent no list (Chrome records `kCRLMissing`).
        case noList
        /// The device sent a list that does not parse or verify (Chrome records `kCRLInvalid`).
        case invalidList
    }

    /// Creates a description.
    public init(
        commonName: String?, issuerCommonNames: [String], isAudioOnly: Bool, revocation: RevocationCheck = .noList
    ) {
        self.commonName = commonName
        self.issuerCommonNames = issuerCommonNames
        self.isAudioOnly = isAudioOnly
        self.revocation = revocation
    }

    /// The model the certificate names: the issuing certificate's common name, if any.
    public var model: String? { self.issuerCommonNames.first }
}

/// How a connection's device authentication ended.
public enum DeviceVerification: Sendable {
    /// The device proved it is a genuine Cast device; what its certificate says.
    case verified(VerifiedDevice)
    /// The check failed, and the policy let the connection stay up; why.
    case unverified(CastTransportError)
    /// No check ran (the policy is off, or the connection is not up yet).
    case notChecked

    /// Whether the device proved it is a genuine Cast device.
    public var isVerified: Bool {
        if case .verified = self { true } else { false }
    }
}
