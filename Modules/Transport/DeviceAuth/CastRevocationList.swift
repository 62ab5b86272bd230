import Crypto
public import Foundation
import SwiftASN1
import SwiftProtobuf
public import X509

/// A Cast certificate revocation list that verified: the `crl` a device
/// sends in its `AuthResponse`, a serialized `CrlBundle`
/// (Protos/cast_revocation.proto), checked as Chrome checks it
/// (Chromium `components/media_router/common/providers/cast/certificate/cast_crl.cc`
/// `ParseAndVerifyCRLUsingCustomTrustStore`, `VerifyCRL`, `CheckRevocation`;
/// Open Screen `cast/common/certificate/cast_crl.cc` does the same).
///
/// - The bundle's first list that parses with version 0 is the one used; if
///   it does not verify, there is no list (later ones are not tried).
/// - Its signer certificate is issued directly by a CRL trust anchor (no
///   intermediates are sent), holds an RSA key, and is valid at the
///   verification time; the signature is RSASSA-PKCS1-v1_5 with SHA-256
///   over the `tbs_crl` bytes exactly as received.
/// - The verification time lies within `[not_before, not_after]` (seconds,
///   inclusive), and no serial range ends before it begins.
/// - The list is good until `not_after` or until its signer chain expires,
///   whichever comes first; a check after that reports the chain revoked,
///   as Chromium's `CheckRevocation` does.
@_spi(Receiver) public struct CastRevocationList: Sendable {
    /// When the list starts to apply.
    @_spi(Receiver) public let notBefore: Date
    /// When it stops: its `not_after`, or its signer chain's expiry if earlier.
    @_spi(Receiver) public let notAfter: Date
    /// SHA-256 of each revoked certificate's DER SubjectPublicKeyInfo.
    @_spi(Receiver) public let revokedKeyHashes: Set<[UInt8]>
    /// Revoked serial numbers (inclusive ranges), by the SHA-256 of their issuer's SubjectPublicKeyInfo.
    @_spi(Receiver) public let revokedSerials: [[UInt8]: [ClosedRange<UInt64>]]

    /// The version of the list's format this verifier reads (`CrlVersion::CRL_VERSION_0`).
    static let supportedVersion: UInt64 = 0

    /// Parses `bundle` and verifies its list against `trustAnchors` at `time`.
    ///
    /// - Throws: ``CastTransportError/Code/revocationListInvalid`` with the reason
    ///   when the bundle does not parse, holds no version 0 list, or the list
    ///   does not verify.
    @_spi(Receiver) public static func verified(
        bundle: [UInt8], trustAnchors: [Certificate], at time: Date
    ) async throws(CastTransportError) -> CastRevocationList {
        let parsed: Cast_Certificate_CrlBundle
        do {
            parsed = try Cast_Certificate_CrlBundle(serializedBytes: bundle)
        } catch {
            throw CastTransportError(.revocationListInvalid, "the CRL bundle does not parse", cause: error)
        }
        for list in parsed.crls {
            guard let contents = try? Cast_Certificate_TbsCrl(serializedBytes: list.tbsCrl),
                contents.version == Self.supportedVersion
            else { continue }
            return try await Self.verify(list, contents: contents, trustAnchors: trustAnchors, at: time)
        }
        throw CastTransportError(.revocationListInvalid, "the CRL bundle holds no list of version 0")
    }

    private static func verify(
        _ list: Cast_Certificate_Crl, contents: Cast_Certificate_TbsCrl, trustAnchors: [Certificate], at time: Date
    ) async throws(CastTransportError) -> CastRevocationList {
        let signer = try Self.verifiedSigner(of: list)

        // The signer chains to a CRL anchor at the verification time, with
        // no intermediate (CertPathBuilder is given none).
        var verifier = Verifier(rootCertificates: CertificateStore(trustAnchors)) {
            CastChainPolicy()
            CastExpiryPolicy(time: time)
        }
        let result = await verifier.validate(leaf: signer, intermediates: CertificateStore())
        guard case .validCertificate(let chain) = result else {
            throw CastTransportError(
                .revocationListInvalid,
                "the CRL's signer does not chain to a CRL trust anchor (\(trustAnchors.count) configured)")
        }

        let notBefore = Self.date(seconds: contents.notBeforeSeconds)
        let listedNotAfter = Self.date(seconds: contents.notAfterSeconds)
        let seconds = Self.date(seconds: UInt64(max(0, time.timeIntervalSince1970.rounded(.down))))
        guard notBefore <= seconds, seconds <= listedNotAfter else {
            throw CastTransportError(
                .revocationListInvalid, "the CRL applies from \(notBefore) to \(listedNotAfter), not at \(time)")
        }
        let serials = try Self.serialRanges(in: contents)
        // Chromium lowers the list's expiry to the earliest notAfter of its signer's path.
        let notAfter = chain.reduce(listedNotAfter) { min($0, $1.notValidAfter) }
        return CastRevocationList(
            notBefore: notBefore,
            notAfter: notAfter,
            revokedKeyHashes: Set(contents.revokedPublicKeyHashes.map { Array($0) }),
            revokedSerials: serials)
    }

    /// The list's signer certificate, once its signature over the `tbs_crl`
    /// bytes verifies with the signer's key.
    private static func verifiedSigner(of list: Cast_Certificate_Crl) throws(CastTransportError) -> Certificate {
        guard list.hasSignerCert, list.hasSignature else {
            throw CastTransportError(.revocationListInvalid, "the CRL has no signer certificate or no signature")
        }
        let signer: Certificate
        do {
            signer = try Certificate(derEncoded: Array(list.signerCert))
        } catch {
            throw CastTransportError(
                .revocationListInvalid, "the CRL's signer certificate does not parse", cause: error)
        }
        // Chromium's VerifyCRL requires an RSA key and verifies with
        // EVP_DigestVerify(SHA-256): RSASSA-PKCS1-v1_5 (RFC 8017), which a
        // key of another type never verifies.
        guard
            signer.publicKey.isValidSignature(
                Array(list.signature), for: Array(list.tbsCrl), signatureAlgorithm: .sha256WithRSAEncryption)
        else {
            throw CastTransportError(
                .revocationListInvalid, "the CRL's signature does not verify with its signer's key")
        }
        return signer
    }

    /// The list's revoked serial ranges, by the SHA-256 of their issuer's
    /// key; throws for a range that ends before it begins.
    private static func serialRanges(
        in contents: Cast_Certificate_TbsCrl
    ) throws(CastTransportError) -> [[UInt8]: [ClosedRange<UInt64>]] {
        var serials: [[UInt8]: [ClosedRange<UInt64>]] = [:]
        for range in contents.revokedSerialNumberRanges {
            guard range.firstSerialNumber <= range.lastSerialNumber else {
                throw CastTransportError(
                    .revocationListInvalid,
                    "the CRL's serial range \(range.firstSerialNumber)…\(range.lastSerialNumber) ends before it begins")
            }
            serials[Array(range.issuerPublicKeyHash), default: []]
                .append(range.firstSerialNumber...range.lastSerialNumber)
        }
        return serials
    }

    /// Checks a verified device chain (the device first, its trust anchor
    /// last) at `time`: no certificate's key is revoked, no certificate's
    /// serial falls in a range revoked for its issuer's key, and the list
    /// still applies.
    ///
    /// A serial number longer than 64 bits matches no range, as in Chromium
    /// (`der::ParseUint64` fails and the range check is skipped).
    ///
    /// - Throws: ``CastTransportError/Code/certificateRevoked``.
    @_spi(Receiver) public func check(chain: [Certificate], at time: Date) throws(CastTransportError) {
        let seconds = Self.date(seconds: UInt64(max(0, time.timeIntervalSince1970.rounded(.down))))
        guard self.notBefore <= seconds, seconds <= self.notAfter else {
            throw CastTransportError(
                .certificateRevoked,
                "the CRL no longer applies (it applies from \(self.notBefore) to \(self.notAfter)), so the chain counts as revoked"
            )
        }
        let hashes = chain.map(Self.keyHash(of:))
        for (certificate, hash) in zip(chain, hashes) where hash.map(self.revokedKeyHashes.contains) ?? false {
            throw CastTransportError(.certificateRevoked, "the key of \(certificate.subject) is revoked")
        }
        for index in chain.indices.dropFirst() {
            guard let hash = hashes[index], let ranges = self.revokedSerials[hash],
                let serial = Self.unsignedSerial(chain[index - 1].serialNumber)
            else { continue }
            if ranges.contains(where: { $0.contains(serial) }) {
                throw CastTransportError(
                    .certificateRevoked, "\(chain[index - 1].subject), serial \(serial), is revoked by its issuer")
            }
        }
    }

    /// The SHA-256 of `certificate`'s DER SubjectPublicKeyInfo (the whole
    /// SEQUENCE, algorithm included): how a list names a key (Chromium
    /// `CheckRevocation` hashes `spki_tlv`). `nil` only if the key cannot be
    /// encoded, which a parsed certificate's always can.
    @_spi(Receiver) public static func keyHash(of certificate: Certificate) -> [UInt8]? {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate.publicKey)) != nil else { return nil }
        return Array(SHA256.hash(data: serializer.serializedBytes))
    }

    /// A serial number as an unsigned 64-bit number; `nil` when it does not
    /// fit (Chromium `der::ParseUint64`), so it matches no range.
    /// swift-certificates keeps a serial's magnitude, leading zeros dropped.
    static func unsignedSerial(_ serial: Certificate.SerialNumber) -> UInt64? {
        let bytes = serial.bytes.drop { $0 == 0 }
        guard bytes.count <= 8 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Seconds since 1970 as a date, saturating as Chromium's `ConvertTimeSeconds` does.
    private static func date(seconds: UInt64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(min(seconds, UInt64(Int64.max))))
    }
}
