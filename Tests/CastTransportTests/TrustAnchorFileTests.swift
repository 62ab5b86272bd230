import CastTransport
import Foundation
import Testing
import X509

@Suite(.timeLimit(.minutes(1))) struct TrustAnchorFileTests {
    private static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("anchors-\(UUID()).pem").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Open Screen's chain file: words before the blocks, lines 75 columns
    /// wide, two certificates; a key block beside them is skipped.
    @Test func everyCertificateIsReadAndOtherBlocksAreSkipped() throws {
        let url = try #require(Bundle.module.url(forResource: "CastDeviceChains/chromecast_gen2", withExtension: "pem"))
        let chain = try String(contentsOf: url, encoding: .utf8)
        let key = "-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n"
        let certificates = try DeviceAuthenticationPolicy.certificates(inPEMFile: try Self.file(chain + key))
        #expect(certificates.count == 2)
        #expect(certificates.first?.subject.description.contains("CN=") == true)
    }

    @Test(arguments: [
        ("", "holds no PEM certificate"),
        ("-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n", "holds no PEM certificate"),
        ("-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n", "a certificate does not parse"),
        ("-----BEGIN CERTIFICATE-----\nMAA=\n", "a certificate has no END line"),
        ("-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n", "a certificate does not parse"),
    ])
    func aFileWithoutAGoodCertificateIsATypedError(text: String, message: String) throws {
        let path = try Self.file(text)
        #expect {
            try DeviceAuthenticationPolicy.certificates(inPEMFile: path)
        } throws: { error in
            guard let error = error as? CastTransportError else { return false }
            return error.code == .invalidCertificateFile && error.message.contains(message)
        }
    }

    @Test func aMissingFileIsATypedError() {
        #expect {
            try DeviceAuthenticationPolicy.certificates(inPEMFile: "/nonexistent/roots.pem")
        } throws: { error in
            (error as? CastTransportError)?.code == .invalidCertificateFile
                && (error as? CastTransportError)?.message == "cannot read /nonexistent/roots.pem"
        }
    }
}
