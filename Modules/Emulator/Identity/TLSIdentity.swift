import Crypto
import Foundation
import NIOSSL
import X509

/// How the emulator's TLS certificate is dated: right, or wrong in one of
/// the ways device authentication must catch.
public enum TLSCertificateValidity: Sendable, Hashable {
    /// Valid from an hour ago for 2 days, as a real receiver's rotating certificate.
    case valid
    /// Expired yesterday.
    case expired
    /// Valid only from tomorrow.
    case notYetValid
    /// Valid for 30 days: longer than the 4 days senders accept.
    case tooLong
}

/// The emulator's TLS server credentials: a fresh self-signed P-256
/// certificate, as real receivers present.
package struct TLSIdentity {
    /// The certificate, DER: what device auth signs.
    package let certificateDER: [UInt8]
    /// The server context built from it.
    let context: NIOSSLContext

    package init(validity: TLSCertificateValidity, name: String) throws(CastEmulatorError) {
        let now = Date()
        let (notBefore, notAfter): (Date, Date) =
            switch validity {
            case .valid: (now.addingTimeInterval(-3_600), now.addingTimeInterval(2 * 86_400))
            case .expired: (now.addingTimeInterval(-3 * 86_400), now.addingTimeInterval(-86_400))
            case .notYetValid: (now.addingTimeInterval(86_400), now.addingTimeInterval(2 * 86_400))
            case .tooLong: (now.addingTimeInterval(-3_600), now.addingTimeInterval(30 * 86_400))
            }
        do {
            let key = P256.Signing.PrivateKey()
            let subject = try DistinguishedName { CommonName(name) }
            let certificate = try Certificate.issued(
                to: Certificate.PublicKey(key.publicKey),
                subject: subject,
                by: subject,
                issuerKey: key,
                validFrom: notBefore,
                until: notAfter
            )
            self.certificateDER = try certificate.derBytes()
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(try NIOSSLCertificate(bytes: self.certificateDER, format: .der))],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))
            )
            self.context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw CastEmulatorError(.identityFailure, "cannot create the TLS certificate", cause: error)
        }
    }
}
