package import Foundation
import SwiftProtobuf
package import X509

/// Checks a device's reply to a ``DeviceAuthChallenge``
/// (Docs/spec/castv2-control.md §2) as Chrome does (cast_auth_util.cc
/// `AuthenticateChallengeReply`): the echoed nonce, the algorithms, the TLS
/// certificate's validity window, the signature over
/// `echoed nonce ‖ TLS certificate DER`, and the device certificate's chain
/// to the trust anchors. Each failure is its own ``CastTransportError/Code``.
package struct DeviceAuthVerifier {
    /// The certificates a device certificate must chain to.
    var trustAnchors: [Certificate]
    /// Whether the echoed nonce must be the challenge's; otherwise an empty
    /// or different one is accepted (Chrome's default) and the signature,
    /// made over what the device echoed, is still checked.
    var requiresNonce = false
    /// The certificates a device's revocation list must be signed under.
    var revocationTrustAnchors: [Certificate]
    /// Whether a device must send a revocation list that verifies.
    var requiresRevocationList = false

    /// A verifier trusting `trustAnchors` for device chains and
    /// `revocationTrustAnchors` for revocation lists, requiring the
    /// challenge's nonce back when `requiresNonce` and a list that verifies
    /// when `requiresRevocationList`.
    package init(
        trustAnchors: [Certificate], requiresNonce: Bool = false,
        revocationTrustAnchors: [Certificate] = CastRootCertificates.revocationRoots,
        requiresRevocationList: Bool = false
    ) {
        self.trustAnchors = trustAnchors
        self.requiresNonce = requiresNonce
        self.revocationTrustAnchors = revocationTrustAnchors
        self.requiresRevocationList = requiresRevocationList
    }

    /// A verifier applying `policy`.
    package init(policy: DeviceAuthenticationPolicy) {
        self.init(
            trustAnchors: policy.trustAnchors, requiresNonce: policy.requiresNonce,
            revocationTrustAnchors: policy.revocationTrustAnchors,
            requiresRevocationList: policy.requiresRevocationList)
    }

    /// Verifies `reply` against the challenge's `nonce` and the TLS peer
    /// certificate `peerCertificateDER`, every date judged at `now`.
    ///
    /// - Returns: what the verified chain says of the device.
    @discardableResult
    package func verify(
        reply: CastMessage,
        nonce: [UInt8],
        peerCertificateDER: [UInt8],
        now: Date
    ) async throws(CastTransportError) -> VerifiedDevice {
        let response = try Self.response(in: reply)
        let echoed = Array(response.senderNonce)
        guard echoed == nonce || !self.requiresNonce else {
            throw CastTransportError(.nonceMismatch, "the reply's sender nonce is not the challenge's")
        }
        let algorithm = try Self.signatureAlgorithm(of: response)
        try Self.checkValidity(ofPeerCertificate: peerCertificateDER, now: now)

        let device: Certificate
        let intermediates: [Certificate]
        do {
            device = try Certificate(derEncoded: Array(response.clientAuthCertificate))
            intermediates = try response.intermediateCertificate.map { try Certificate(derEncoded: Array($0)) }
        } catch {
            throw CastTransportError(
                .deviceCertificateInvalid, "a certificate in the reply does not parse", cause: error)
        }

        let signed = echoed + peerCertificateDER
        guard device.publicKey.isValidSignature(Array(response.signature), for: signed, signatureAlgorithm: algorithm)
        else {
            throw CastTransportError(.signatureInvalid, "the signature does not verify with the device certificate")
        }

        var verified = try await Self.verifyChain(
            device: device, intermediates: intermediates, trustAnchors: self.trustAnchors, at: now)
        verified.device.revocation = try await self.checkRevocation(
            of: verified.chain, list: Array(response.crl), at: now)
        return verified.device
    }

    /// Applies the device's revocation list `list` (empty when it sent none)
    /// to its verified `chain`, as Chrome's `VerifyDeviceCertUsingCustomTrustStore`
    /// and `MapToAuthResult` do under its default policy: a list that
    /// verifies is enforced; a missing or unverifiable one fails only when
    /// the policy requires one.
    func checkRevocation(
        of chain: [Certificate], list: [UInt8], at now: Date
    ) async throws(CastTransportError) -> VerifiedDevice.RevocationCheck {
        guard !list.isEmpty else {
            if self.requiresRevocationList {
                throw CastTransportError(.revocationListInvalid, "the device sent no certificate revocation list")
            }
            return .noList
        }
        let revocations: CastRevocationList
        do {
            revocations = try await CastRevocationList.verified(
                bundle: list, trustAnchors: self.revocationTrustAnchors, at: now)
        } catch {
            if self.requiresRevocationList { throw error }
            return .invalidList
        }
        try revocations.check(chain: chain, at: now)
        return .passed
    }

    /// The DER of the audio-only policy OID, 1.3.6.1.4.1.11129.2.5.2, which Open
    /// Screen compares byte for byte (cast_cert_validator.cc:25-26).
    static let audioOnlyPolicy: [UInt8] = [0x06, 0x0A, 0x2B, 0x06, 0x01, 0x04, 0x01, 0xD6, 0x79, 0x02, 0x05, 0x02]
    /// certificatePolicies, 2.5.29.32.
    static let certificatePolicies = "2.5.29.32"

    /// Checks that `device` chains through `intermediates` to one of
    /// `trustAnchors` (RFC 5280 path validation at `time` as Chrome does it:
    /// ``CastChainPolicy``, ``CastExpiryPolicy``) and may sign
    /// (key usage digitalSignature, as Open Screen's `FindCertificatePath`
    /// requires, boringssl_trust_store.cc:409-419).
    ///
    /// - Returns: what the chain says of the device, and the chain itself
    ///   (the device first, the trust anchor last).
    static func verifyChain(
        device: Certificate, intermediates: [Certificate], trustAnchors: [Certificate], at time: Date
    ) async throws(CastTransportError) -> (device: VerifiedDevice, chain: [Certificate]) {
        var verifier = Verifier(rootCertificates: CertificateStore(trustAnchors)) {
            CastChainPolicy()
            CastExpiryPolicy(time: time)
        }
        let result = await verifier.validate(leaf: device, intermediates: CertificateStore(intermediates))
        guard case .validCertificate(let chain) = result else {
            throw CastTransportError(
                .untrustedCertificateChain,
                "the device certificate does not chain to a trusted anchor (\(trustAnchors.count) configured)"
            )
        }
        guard let usage = try? device.extensions.keyUsage, usage.digitalSignature else {
            throw CastTransportError(
                .deviceCertificateInvalid, "the device certificate may not sign (no digitalSignature key usage)")
        }
        let isAudioOnly = chain.contains { certificate in
            certificate.extensions.contains { element in
                "\(element.oid)" == Self.certificatePolicies && Array(element.value).contains(Self.audioOnlyPolicy)
            }
        }
        let verified = VerifiedDevice(
            commonName: Self.commonName(of: device),
            issuerCommonNames: chain.dropFirst().map(Self.commonName).compactMap { $0 },
            isAudioOnly: isAudioOnly)
        return (verified, Array(chain))
    }

    private static func commonName(of certificate: Certificate) -> String? {
        for relativeName in certificate.subject {
            for attribute in relativeName where attribute.type == .RDNAttributeType.commonName {
                return attribute.value.description
            }
        }
        return nil
    }

    /// The `AuthResponse` inside `reply`, or the typed reason there is none.
    private static func response(in reply: CastMessage) throws(CastTransportError) -> Cast_Channel_AuthResponse {
        guard let bytes = reply.bytes else {
            throw CastTransportError(.malformedAuthResponse, "the reply is text, not a binary DeviceAuthMessage")
        }
        let envelope: Cast_Channel_DeviceAuthMessage
        do {
            envelope = try Cast_Channel_DeviceAuthMessage(serializedBytes: bytes)
        } catch {
            throw CastTransportError(.malformedAuthResponse, "the reply is not a DeviceAuthMessage", cause: error)
        }
        if envelope.hasError {
            throw CastTransportError(
                .authenticationRejected,
                "the device answered with AuthError \(envelope.error.errorType)"
            )
        }
        guard envelope.hasResponse else {
            throw CastTransportError(.malformedAuthResponse, "the reply holds neither a response nor an error")
        }
        return envelope.response
    }

    /// The signature algorithm the response declares, if this verifier supports it.
    private static func signatureAlgorithm(
        of response: Cast_Channel_AuthResponse
    ) throws(CastTransportError) -> Certificate.SignatureAlgorithm {
        guard response.signatureAlgorithm == .rsassaPkcs1V15 else {
            throw CastTransportError(
                .unsupportedSignatureAlgorithm,
                "signature algorithm \(response.signatureAlgorithm) is not supported; RSASSA-PKCS1-v1_5 is"
            )
        }
        switch response.hashAlgorithm {
        case .sha256: return .sha256WithRSAEncryption
        case .sha1: return .sha1WithRSAEncryption
        }
    }

    /// Checks the TLS certificate is valid now and expires within 4 days.
    private static func checkValidity(ofPeerCertificate der: [UInt8], now: Date) throws(CastTransportError) {
        let peer: Certificate
        do {
            peer = try Certificate(derEncoded: der)
        } catch {
            throw CastTransportError(.peerCertificateInvalid, "the TLS certificate does not parse", cause: error)
        }
        if peer.notValidBefore > now {
            throw CastTransportError(
                .peerCertificateNotYetValid, "the TLS certificate is valid from \(peer.notValidBefore)")
        }
        if peer.notValidAfter < now {
            throw CastTransportError(.peerCertificateExpired, "the TLS certificate expired at \(peer.notValidAfter)")
        }
        if peer.notValidAfter.timeIntervalSince(now) > TransportConstants.maximumPeerCertificateLifetime {
            throw CastTransportError(
                .peerCertificateLifetimeTooLong,
                "the TLS certificate expires at \(peer.notValidAfter), more than 4 days from now"
            )
        }
    }
}
