import Foundation
import SwiftASN1
import X509

/// The validity periods Chrome checks on a Cast device's chain: every
/// certificate's but the trust anchor's. Chromium's Cast verifier
/// (`components/cast_certificate/cast_cert_validator.cc`) adds Google's roots
/// as trust anchors without enforced constraints
/// (`bssl::CertificateTrust::ForTrustAnchor()`), whose own notBefore and
/// notAfter path validation does not read (Chromium
/// `net/data/verify_certificate_chain_unittest/expired-root`: "the trust
/// anchor has no constraints (so expiration of the certificate is not
/// enforced)"). swift-certificates' `RFC5280Policy` checks every
/// certificate's; the verifier runs this policy and ``CastChainPolicy`` instead.
struct CastExpiryPolicy: VerifierPolicy {
    /// This policy reads no extension.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// The instant the chain is checked at.
    let time: Date

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        // The last certificate of a candidate chain is the trust anchor.
        for certificate in chain.dropLast() {
            if certificate.notValidBefore > certificate.notValidAfter {
                return .failsToMeetPolicy(reason: "\(certificate.subject) is valid from after it expires")
            }
            if self.time < certificate.notValidBefore {
                return .failsToMeetPolicy(reason: "\(certificate.subject) is not valid yet")
            }
            if self.time > certificate.notValidAfter {
                return .failsToMeetPolicy(reason: "\(certificate.subject) has expired")
            }
        }
        return .meetsPolicy
    }
}
