import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing
import X509

/// `cast` deciding device trust as Chrome does, against an emulator whose
/// chain the user trusts with `--trust-anchor` (issue 34): verified when its
/// own revocation list spares it, unverified — and refused with
/// `--require-authentication` — when the list revokes its certificate.
@Suite(.timeLimit(.minutes(10))) struct CastDeviceTrustTests {
    /// PEM files of `certificates`, readable by the unprivileged user the CLI runs as.
    static func pemFile(_ name: String, _ certificates: [Certificate]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cast-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let path = folder.appendingPathComponent(name).path
        let text = try certificates.map { try $0.serializeAsPEM().pemString }.joined(separator: "\n") + "\n"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644]))
        return path
    }

    @Test func aDeviceItsOwnListRevokesIsUnverifiedOrRefused() async throws {
        let issuer = try RevocationListIssuer.shared()
        var identity = try ReceiverIdentity.shared()
        let roots = try Self.pemFile("roots.pem", [identity.rootCertificate])
        let listRoots = try Self.pemFile("crl-roots.pem", [issuer.rootCertificate])
        let trust = ["--trust-anchor", roots, "--revocation-anchor", listRoots]

        identity.revocationList = try issuer.revocationList(
            revoking: [CastRootCertificates.eurekaRootCA].compactMap { $0 })
        try await CastCommandLineTests.withEmulator(identity: identity) { _, device in
            let status = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"), ["status", "--device", device, "--json"] + trust)
            #expect(status.status == 0, "\(status.stderr)")
            #expect(!status.stderr.contains("is not a verified Cast device"), "\(status.stderr)")
        }

        identity.revocationList = try issuer.revocationList(revoking: [identity.deviceCertificate])
        try await CastCommandLineTests.withEmulator(identity: identity) { _, device in
            let status = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"), ["status", "--device", device, "--json"] + trust)
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stderr.contains("is not a verified Cast device (certificateRevoked)"), "\(status.stderr)")
            let strict = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"),
                ["status", "--device", device, "--require-authentication"] + trust)
            #expect(strict.status == 4, "\(strict.stderr)")
            // One sentence naming the cause; the error's code with --verbose.
            #expect(strict.stderr.contains("error: the key of CN=Cast Emulator Device is revoked"), "\(strict.stderr)")
            let verbose = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"),
                ["status", "--device", device, "--require-authentication", "--verbose"] + trust)
            #expect(verbose.status == 4, "\(verbose.stderr)")
            #expect(verbose.stderr.contains("certificateRevoked"), "\(verbose.stderr)")
        }
    }

    @Test func anUnreadableAnchorFileIsBadInput() async throws {
        let run = try await CastCommandLineTests.cast(
            "status", "--device", "127.0.0.1:9", "--trust-anchor", "/nonexistent/roots.pem")
        #expect(run.status == 9, "\(run.stderr)")
        #expect(run.stderr.contains("cannot read /nonexistent/roots.pem"), "\(run.stderr)")
    }
}
