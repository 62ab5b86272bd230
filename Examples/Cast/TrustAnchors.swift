import ArgumentParser
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

}

/// How far a device must prove it is a genuine Cast device: the same options
/// on every command that connects (`cast status`, `cast play`, … and
/// `cast ui`, `cast tray`, `cast speakers`).
struct TrustOptions: ParsableArguments {
    @Flag(help: "Refuse a device that cannot prove it is a genuine Cast device (Google's Cast roots).")
    var requireAuthentication = false

    @Option(
        name: .customLong("trust-anchor"),
        help: ArgumentHelp(
            "A PEM file of root certificates to trust besides Google's Cast roots, e.g. your own test devices' (repeatable).",
            valueName: "FILE"))
    var trustAnchorFiles: [String] = []

    @Option(
        name: .customLong("revocation-anchor"),
        help: ArgumentHelp(
            "A PEM file of roots to trust for devices' certificate revocation lists besides Google's Cast CRL root (repeatable).",
            valueName: "FILE"))
    var revocationAnchorFiles: [String] = []

    /// The policy these options ask for: Google's roots and CRL root, plus the
    /// files given; required with `--require-authentication`.
    ///
    /// - Throws: ``CommandFailure`` (bad input) when a file cannot be read or holds no certificate.
    func policy() throws -> DeviceAuthenticationPolicy {
        var policy: DeviceAuthenticationPolicy =
            self.requireAuthentication ? .required(trusting: CastRootCertificates.all) : .verifying
        policy.trustAnchors += try self.trustAnchorFiles.flatMap(TrustAnchors.certificates(inPEMFile:))
        policy.revocationTrustAnchors += try self.revocationAnchorFiles.flatMap(
            TrustAnchors.certificates(inPEMFile:))
        return policy
    }
}
