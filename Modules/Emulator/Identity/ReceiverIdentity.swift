import Crypto
import Foundation
public import X509
import _CryptoExtras

/// The emulator's device-authentication credentials: its own test CA, an
/// intermediate, and a device certificate whose RSA key signs challenges,
/// the way a real receiver's chain leads to Google's Cast root.
///
/// Configure a sender to trust ``rootCertificate`` and it will authenticate
/// the emulator as a genuine device.
public struct ReceiverIdentity: Sendable {
    /// The test root CA: the trust anchor to configure in a sender.
    public let rootCertificate: Certificate
    /// The intermediate CA, sent with every device-auth reply.
    public let intermediateCertificate: Certificate
    /// The device certificate (`client_auth_certificate`).
    public let deviceCertificate: Certificate
    /// The device certificate's key, which signs `nonce ‖ TLS certificate`.
    let deviceKey: _RSA.Signing.PrivateKey
    /// ``deviceCertificate``, DER.
    let deviceCertificateDER: [UInt8]
    /// ``intermediateCertificate``, DER.
    let intermediateCertificateDER: [UInt8]
    /// The certificate revocation list sent with every device-auth reply (a
    /// serialized `CrlBundle`, e.g. from
    /// ``RevocationListIssuer/revocationList(revoking:validFrom:until:)``),
    /// as a real device sends Google's current list; `nil` (the default)
    /// sends none.
    public var revocationList: [UInt8]?

    /// The bits of the device's RSA key, as on real receivers.
    static let deviceKeyBits = 2048

    /// Generates a new chain: root and intermediate on P-256, the device key RSA-2048.
    ///
    /// - Parameter name: goes into each certificate's common name.
    public static func generate(name: String = "Cast Emulator") throws(CastEmulatorError) -> ReceiverIdentity {
        do {
            let now = Date()
            let rootKey = P256.Signing.PrivateKey()
            let intermediateKey = P256.Signing.PrivateKey()
            let deviceKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let rootName = try DistinguishedName { CommonName("\(name) Test Root CA") }
            let intermediateName = try DistinguishedName { CommonName("\(name) Test Intermediate CA") }
            let deviceName = try DistinguishedName { CommonName("\(name) Device") }
            let caExtensions = try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }
            let dayAgo = now.addingTimeInterval(-86_400)
            let root = try Certificate.issued(
                to: Certificate.PublicKey(rootKey.publicKey),
                subject: rootName,
                by: rootName,
                issuerKey: rootKey,
                validFrom: dayAgo,
                until: now.addingTimeInterval(10 * 365 * 86_400),
                extensions: caExtensions
            )
            let intermediate = try Certificate.issued(
                to: Certificate.PublicKey(intermediateKey.publicKey),
                subject: intermediateName,
                by: rootName,
                issuerKey: rootKey,
                validFrom: dayAgo,
                until: now.addingTimeInterval(5 * 365 * 86_400),
                extensions: caExtensions
            )
            let device = try Certificate.issued(
                to: Certificate.PublicKey(deviceKey.publicKey),
                subject: deviceName,
                by: intermediateName,
                issuerKey: intermediateKey,
                validFrom: dayAgo,
                until: now.addingTimeInterval(365 * 86_400),
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                }
            )
            return ReceiverIdentity(
                rootCertificate: root,
                intermediateCertificate: intermediate,
                deviceCertificate: device,
                deviceKey: deviceKey,
                deviceCertificateDER: try device.derBytes(),
                intermediateCertificateDER: try intermediate.derBytes()
            )
        } catch {
            throw CastEmulatorError(.identityFailure, "cannot generate the device-auth chain", cause: error)
        }
    }

    /// One identity shared by every emulator in the process that is not
    /// given its own (RSA key generation is slow in debug builds).
    public static func shared() throws(CastEmulatorError) -> ReceiverIdentity {
        try Self.sharedResult.get()
    }

    private static let sharedResult = Result { () throws(CastEmulatorError) -> ReceiverIdentity in
        try ReceiverIdentity.generate()
    }

    /// A key that is not the device's, for the "sign with a wrong key" fault; generated once.
    static let wrongKey = Result { () throws(CastEmulatorError) -> _RSA.Signing.PrivateKey in
        do {
            return try _RSA.Signing.PrivateKey(keySize: .bits2048)
        } catch {
            throw CastEmulatorError(.identityFailure, "cannot generate an RSA key", cause: error)
        }
    }
}
