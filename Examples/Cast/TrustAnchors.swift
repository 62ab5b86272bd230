import CastKit
import Foundation
import X509

/// Root certificates a user adds to device authentication (`--trust-anchor`,
/// `--revocation-anchor`): for their own test devices or a receiver
/// emulator, whose chains and revocation lists are not Google's.
enum TrustAnchors {
    /// Every certificate in the PEM file at `path`.
    ///
    /// - Throws: ``CommandFailure`` (bad input) when the file cannot be read or holds no certificate.
    static func certificates(inPEMFile path: String) throws -> [Certificate] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandFailure(.badInput, "cannot read \(path): \(error.localizedDescription)")
        }
        let end = "-----END CERTIFICATE-----"
        let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        let certificates = try blocks.map { block in
            guard let body = block.components(separatedBy: end).first, block.contains(end) else {
                throw CommandFailure(.badInput, "\(path): a certificate has no END line")
            }
            do {
                return try Certificate(pemEncoded: "-----BEGIN CERTIFICATE-----\(body)\(end)\n")
            } catch {
                throw CommandFailure(.badInput, "\(path): a certificate does not parse (\(error))")
            }
        }
        guard !certificates.isEmpty else {
            throw CommandFailure(.badInput, "\(path) holds no PEM certificate")
        }
        return certificates
    }

    /// The policy `options` ask for: Google's roots and CRL root, plus the
    /// files given; required with `--require-authentication`.
    static func policy(_ options: DeviceOptions) throws -> DeviceAuthenticationPolicy {
        var policy: DeviceAuthenticationPolicy =
            options.requireAuthentication ? .required(trusting: CastRootCertificates.all) : .verifying
        policy.trustAnchors += try options.trustAnchorFiles.flatMap(Self.certificates(inPEMFile:))
        policy.revocationTrustAnchors += try options.revocationAnchorFiles.flatMap(Self.certificates(inPEMFile:))
        return policy
    }
}
