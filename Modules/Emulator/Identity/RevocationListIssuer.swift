@_spi(Receiver) import CastTransport
public import Foundation
import SwiftASN1
public import X509
import _CryptoExtras

/// A test Cast CRL authority: a CRL root and the signer it issued, which sign
/// certificate revocation lists the way Google's Cast CRL Root CA signs the
/// list real devices send in their device-auth reply (Chromium
/// `cast_crl.cc`: an RSA signer issued directly by the root, RSASSA-PKCS1-v1_5
/// with SHA-256 over the serialized `TbsCrl`; Open Screen's
/// `cast/test/make_crl_tests.cc` makes its test lists the same way).
///
/// Give the emulator's ``ReceiverIdentity/revocationList`` a list from
/// ``revocationList(revoking:validFrom:until:)`` and configure a sender's
/// `DeviceAuthenticationPolicy.revocationTrustAnchors` with
/// ``rootCertificate``.
public struct RevocationListIssuer: Sendable {
    /// The CRL root: the anchor to configure in a sender.
    public let rootCertificate: Certificate
    /// The certificate that signs the lists, issued by ``rootCertificate``.
    public let signerCertificate: Certificate
    private let signerKey: _RSA.Signing.PrivateKey
    private let signerCertificateDER: [UInt8]

    /// Generates a root and a signer, both RSA-2048 as Google's are.
    ///
    /// - Parameter name: goes into each certificate's common name.
    public static func generate(name: String = "Cast Emulator") throws(CastEmulatorError) -> RevocationListIssuer {
        do {
            let now = Date()
            let rootKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let signerKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let rootName = try DistinguishedName { CommonName("\(name) CRL Test Root CA") }
            let signerName = try DistinguishedName { CommonName("\(name) CRL Test Signer") }
            // As Google's Cast CRL Root CA: a CA allowing one level below it.
            let root = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
                notValidBefore: now.addingTimeInterval(-86_400),
                notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
                issuer: rootName, subject: rootName, signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 1))
                    Critical(KeyUsage(keyCertSign: true))
                },
                issuerPrivateKey: .init(rootKey))
            let signer = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(signerKey.publicKey),
                notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(365 * 86_400),
                issuer: rootName, subject: signerName, signatureAlgorithm: .sha256WithRSAEncryption,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                },
                issuerPrivateKey: .init(rootKey))
            var serializer = DER.Serializer()
            try serializer.serialize(signer)
            return RevocationListIssuer(
                rootCertificate: root, signerCertificate: signer, signerKey: signerKey,
                signerCertificateDER: serializer.serializedBytes)
        } catch {
            throw CastEmulatorError(.identityFailure, "cannot generate the CRL authority", cause: error)
        }
    }

    /// One issuer shared by every user in the process (RSA key generation is slow in debug builds).
    public static func shared() throws(CastEmulatorError) -> RevocationListIssuer {
        try Self.sharedResult.get()
    }

    private static let sharedResult = Result { () throws(CastEmulatorError) -> RevocationListIssuer in
        try RevocationListIssuer.generate()
    }

    /// A serialized `CrlBundle` holding one version 0 list that revokes the
    /// keys of `certificates` (SHA-256 of each one's SubjectPublicKeyInfo),
    /// valid from `notBefore` to `notAfter` (whole seconds, inclusive).
    public func revocationList(
        revoking certificates: [Certificate] = [],
        validFrom notBefore: Date = Date().addingTimeInterval(-86_400),
        until notAfter: Date = Date().addingTimeInterval(7 * 86_400)
    ) throws(CastEmulatorError) -> [UInt8] {
        do {
            var contents = Cast_Certificate_TbsCrl()
            contents.version = 0
            contents.notBeforeSeconds = UInt64(max(0, notBefore.timeIntervalSince1970.rounded(.down)))
            contents.notAfterSeconds = UInt64(max(0, notAfter.timeIntervalSince1970.rounded(.down)))
            contents.revokedPublicKeyHashes = certificates.compactMap(CastRevocationList.keyHash(of:)).map { Data($0) }
            return try self.bundle(signing: try contents.serializedBytes())
        } catch let error as CastEmulatorError {
            throw error
        } catch {
            throw CastEmulatorError(.identityFailure, "cannot encode the revocation list", cause: error)
        }
    }

    /// A serialized `CrlBundle` holding one list whose `tbs_crl` is
    /// `contents` as given, signed: what the fuzz target verifies lists of
    /// any content with.
    package func bundle(signing contents: [UInt8]) throws(CastEmulatorError) -> [UInt8] {
        do {
            let signature = try self.signerKey.signature(for: contents, padding: .insecurePKCS1v1_5)
            var list = Cast_Certificate_Crl()
            list.tbsCrl = Data(contents)
            list.signerCert = Data(self.signerCertificateDER)
            list.signature = signature.rawRepresentation
            var bundle = Cast_Certificate_CrlBundle()
            bundle.crls = [list]
            return try bundle.serializedBytes()
        } catch {
            throw CastEmulatorError(.identityFailure, "cannot sign the revocation list", cause: error)
        }
    }
}
