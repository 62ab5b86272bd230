import SwiftASN1
import X509

/// RFC 5280 path validation of a Cast device's chain as Chrome applies it,
/// beside the signatures (the `Verifier`'s own) and the validity periods
/// (``CastExpiryPolicy``). Chromium's Cast verifier
/// (`components/cast_certificate/cast_cert_validator.cc`) and Open Screen's
/// ignore a trust anchor's validity period (an expired Cast root still
/// anchors) but enforce its path-length constraint
/// (`cast_cert_validator_unittest.cc`, `ViolatesPathlenTrustAnchorConstraint`):
/// here the anchor's basicConstraints, when it has them, must make it a CA
/// whose path length allows the CAs below it. Every certificate between it
/// and the device is an issuing CA, within its path length, and the name
/// constraints it carries bind every certificate below it.
///
/// swift-certificates' `RFC5280Policy` refuses any chain whose constraints
/// name a directoryName ("not supported"), though RFC 5280 section 4.2.1.10 and
/// Chrome (BoringSSL `pki/name_constraints.cc`, `pki/verify_name_match.cc`)
/// match a subject against a directoryName subtree by its leading RDNs,
/// compared case-insensitively with spaces folded. This policy does that,
/// and dNSName and iPAddress as RFC 5280 says; a constraint of another type
/// refuses a certificate that presents a name of that type.
struct CastChainPolicy: VerifierPolicy {
    /// The extensions this policy reads, and keyUsage, which the verifier
    /// checks on the device itself (as `RFC5280Policy` lists it).
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints, .X509ExtensionID.nameConstraints, .X509ExtensionID.keyUsage,
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let certificates = Array(chain)
        for certificate in certificates where certificate.version == .v1 && !certificate.extensions.isEmpty {
            return .failsToMeetPolicy(reason: "\(certificate.subject) is version 1 but has extensions")
        }
        // The certificates between the device (first) and the anchor (last).
        guard certificates.count > 1 else { return .meetsPolicy }
        var issuingCAsBelow = 0
        for index in 1..<(certificates.count - 1) {
            let issuer = certificates[index]
            if let reason = Self.checkAuthority(issuer, issuingCAsBelow: issuingCAsBelow) {
                return .failsToMeetPolicy(reason: reason)
            }
            if let reason = Self.checkNameConstraints(of: issuer, on: certificates[..<index]) {
                return .failsToMeetPolicy(reason: reason)
            }
            if !issuer.isSelfIssued { issuingCAsBelow += 1 }
        }
        // The anchor: its path length, not its validity nor its name constraints.
        if let anchor = certificates.last,
            let reason = Self.checkAuthority(anchor, issuingCAsBelow: issuingCAsBelow, isAnchor: true)
        {
            return .failsToMeetPolicy(reason: reason)
        }
        return .meetsPolicy
    }

    /// Why `certificate` may not issue the `issuingCAsBelow` CAs under it, if it may not. An
    /// anchor without basicConstraints may (a version 1 root has none).
    private static func checkAuthority(
        _ certificate: Certificate, issuingCAsBelow: Int, isAnchor: Bool = false
    ) -> String? {
        guard certificate.version != .v1 else { return nil }
        do {
            let constraints = try certificate.extensions.basicConstraints
            if isAnchor, constraints == nil { return nil }
            guard case .isCertificateAuthority(let maximumPathLength) = constraints
            else { return "\(certificate.subject) is not a CA" }
            if let maximumPathLength, issuingCAsBelow > maximumPathLength {
                return
                    "\(certificate.subject) allows \(maximumPathLength) CAs below it, the chain has \(issuingCAsBelow)"
            }
            if let usage = try certificate.extensions.keyUsage, !usage.keyCertSign {
                return "\(certificate.subject) may not sign certificates (no keyCertSign key usage)"
            }
        } catch {
            return "\(certificate.subject) has extensions that do not parse: \(error)"
        }
        return nil
    }

    /// Why a certificate of `issued` breaks `issuer`'s name constraints, if one does.
    private static func checkNameConstraints(
        of issuer: Certificate, on issued: ArraySlice<Certificate>
    ) -> String? {
        let constraints: NameConstraints
        do {
            guard let found = try issuer.extensions.nameConstraints else { return nil }
            constraints = found
        } catch {
            return "the name constraints of \(issuer.subject) do not parse: \(error)"
        }
        for (position, certificate) in zip(issued.indices, issued) {
            // RFC 5280 6.1.3 (b): a self-issued CA certificate is not bound, the device always is.
            if position != issued.startIndex, certificate.isSelfIssued { continue }
            let names: [GeneralName]
            do {
                names = Array(try certificate.extensions.subjectAlternativeNames ?? SubjectAlternativeNames())
            } catch {
                return "the subject alternative names of \(certificate.subject) do not parse: \(error)"
            }
            var presented = names
            if !certificate.subject.isEmpty { presented.append(.directoryName(certificate.subject)) }
            for name in presented {
                if let reason = Self.check(name, against: constraints) {
                    return "\(certificate.subject): \(reason) under the name constraints of \(issuer.subject)"
                }
            }
        }
        return nil
    }

    /// Why `name` is outside `constraints`, if it is.
    private static func check(_ name: GeneralName, against constraints: NameConstraints) -> String? {
        let permitted = constraints.permittedSubtrees.filter { Self.sameType($0, name) }
        let excluded = constraints.excludedSubtrees.filter { Self.sameType($0, name) }
        guard !permitted.isEmpty || !excluded.isEmpty else { return nil }
        var matches: [Bool] = []
        for subtree in permitted + excluded {
            guard let match = Self.matches(name, subtree) else { return "\(name) is of a type not checked" }
            matches.append(match)
        }
        if !permitted.isEmpty, !matches.prefix(permitted.count).contains(true) { return "\(name) is not permitted" }
        if matches.dropFirst(permitted.count).contains(true) { return "\(name) is excluded" }
        return nil
    }

    /// Whether `name` lies in `subtree`; `nil` for a type this policy does not match.
    private static func matches(_ name: GeneralName, _ subtree: GeneralName) -> Bool? {
        switch (name, subtree) {
        case (.directoryName(let name), .directoryName(let subtree)):
            let names = Array(name)
            let prefix = Array(subtree)
            return prefix.count <= names.count && zip(prefix, names).allSatisfy(Self.sameRDN)
        case (.dnsName(let name), .dnsName(let subtree)):
            let host = name.lowercased()
            let domain = subtree.lowercased()
            if domain.isEmpty { return true }
            if domain.hasPrefix(".") { return host.hasSuffix(domain) }
            return host == domain || host.hasSuffix("." + domain)
        case (.ipAddress(let address), .ipAddress(let range)):
            let address = Array(address.bytes)
            let range = Array(range.bytes)
            guard range.count == 2 * address.count else { return false }
            return zip(address, zip(range.prefix(address.count), range.suffix(address.count))).allSatisfy {
                $0 & $1.1 == $1.0 & $1.1
            }
        default:
            return nil
        }
    }

    /// Whether two names are of one GeneralName type.
    private static func sameType(_ lhs: GeneralName, _ rhs: GeneralName) -> Bool {
        switch (lhs, rhs) {
        case (.otherName, .otherName), (.rfc822Name, .rfc822Name), (.dnsName, .dnsName),
            (.x400Address, .x400Address), (.directoryName, .directoryName), (.ediPartyName, .ediPartyName),
            (.uniformResourceIdentifier, .uniformResourceIdentifier), (.ipAddress, .ipAddress),
            (.registeredID, .registeredID):
            true
        default:
            false
        }
    }

    /// Whether two RDNs hold the same attributes, as a set.
    private static func sameRDN(_ lhs: RelativeDistinguishedName, _ rhs: RelativeDistinguishedName) -> Bool {
        lhs.count == rhs.count
            && lhs.allSatisfy { attribute in rhs.contains { Self.sameAttribute(attribute, $0) } }
            && rhs.allSatisfy { attribute in lhs.contains { Self.sameAttribute(attribute, $0) } }
    }

    /// Whether two attributes match as Chrome compares them: strings
    /// case-insensitively (ASCII) with leading, trailing and repeated spaces
    /// folded; other values byte for byte.
    private static func sameAttribute(
        _ lhs: RelativeDistinguishedName.Attribute, _ rhs: RelativeDistinguishedName.Attribute
    ) -> Bool {
        guard lhs.type == rhs.type else { return false }
        guard let left = String(lhs.value), let right = String(rhs.value) else { return lhs.value == rhs.value }
        return Self.folded(left) == Self.folded(right)
    }

    /// `text` lowercased (ASCII), its runs of spaces made one, trimmed.
    private static func folded(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ").lowercased()
    }
}

extension Certificate {
    /// Whether the certificate names itself as its issuer.
    fileprivate var isSelfIssued: Bool { self.issuer == self.subject }
}
