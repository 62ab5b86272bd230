import ArgumentParser
import CastKit

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
        do throws(CastTransportError) {
            for file in self.trustAnchorFiles {
                policy.trustAnchors += try DeviceAuthenticationPolicy.certificates(inPEMFile: file)
            }
            for file in self.revocationAnchorFiles {
                policy.revocationTrustAnchors += try DeviceAuthenticationPolicy.certificates(inPEMFile: file)
            }
        } catch {
            throw CommandFailure(.invalidInput, error.summary, details: "\(error)")
        }
        return policy
    }
}
