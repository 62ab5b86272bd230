import CastEmulator
import Foundation
import SwiftProtobuf
import Testing
import X509

@_spi(Receiver) @testable import CastTransport

/// The Cast certificate revocation list as Chrome checks it (issue 34), on
/// Open Screen's own test vectors, Chromium's production list, and the
/// emulator sending a list of its own. Before, the `crl` of a device's reply
/// was ignored: a revoked device verified.
@Suite(.timeLimit(.minutes(3))) struct RevocationListTests {
    /// Every certificate in a PEM file of Open Screen's test data (which keeps
    /// `openssl x509 -text` output before each block: the base64 is read).
    static func certificates(_ name: String) throws -> [Certificate] {
        let url = try #require(Bundle.module.url(forResource: "CastRevocationLists/\(name)", withExtension: nil))
        let text = try String(contentsOf: url, encoding: .utf8)
        let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst().map {
            $0.components(separatedBy: "-----END CERTIFICATE-----")[0].filter { !$0.isWhitespace }
        }
        return try blocks.map { try Certificate(derEncoded: Array(try #require(Data(base64Encoded: $0)))) }
    }

    static func resource(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "CastRevocationLists/\(name)", withExtension: nil))
        return Array(try Data(contentsOf: url))
    }

    /// Open Screen's `testsuite1.pb`: 32 cases, each with its chain, list, times and verdict.
    static let suite: [Cast_Certificate_DeviceCertTest] = {
        guard let bytes = try? Self.resource("testsuite1.pb"),
            let suite = try? Cast_Certificate_DeviceCertTestSuite(serializedBytes: bytes)
        else { return [] }
        return suite.tests
    }()

    static func date(_ seconds: UInt64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    @Test func theSuiteHoldsOpenScreensThirtyTwoCases() {
        #expect(Self.suite.count == 32)
    }

    @Test func theBundledCRLRootIsGooglesCastCRLRoot() throws {
        let root = try #require(CastRootCertificates.castCRLRootCA)
        #expect("\(root.subject)".contains("Cast CRL Root CA"))
        #expect(root.notValidAfter == Self.date(2_100_808_067))
        #expect(DeviceAuthenticationPolicy.verifying.revocationTrustAnchors == [root])
        #expect(DeviceAuthenticationPolicy.verifying.requiresRevocationList == false)
    }

    /// Runs one of Open Screen's cases as its `cast_crl_unittest.cc` `RunTest`
    /// does: the chain at the certificate time, the list at the CRL time
    /// (the certificate time when absent), the revocation check at the
    /// certificate time, with revocation required where the case expects a
    /// failure without a list.
    @Test(arguments: 0..<32) func openScreensCase(_ index: Int) async throws {
        let test = try #require(Self.suite.count > index ? Self.suite[index] : nil)
        let name = "#\(index) \(test.description_p)"
        let anchors: [Certificate]
        let listAnchors: [Certificate]
        if test.useTestTrustAnchors {
            anchors = try Self.certificates("cast_test_root_ca.pem")
            listAnchors = try Self.certificates("cast_crl_test_root_ca.pem")
        } else {
            anchors = CastRootCertificates.all
            listAnchors = [try #require(CastRootCertificates.castCRLRootCA)]
        }
        let certificateTime = Self.date(test.certVerificationTimeSeconds)
        let listTime = test.hasCrlVerificationTimeSeconds ? Self.date(test.crlVerificationTimeSeconds) : certificateTime
        let path = try test.derCertPath.map { try Certificate(derEncoded: Array($0)) }
        let list = Array(test.crlBundle)

        func chain() async throws -> [Certificate] {
            let device = try #require(path.first, "\(name): no device certificate")
            return try await DeviceAuthVerifier.verifyChain(
                device: device, intermediates: Array(path.dropFirst()), trustAnchors: anchors, at: certificateTime
            ).chain
        }
        func verifiedList() async throws -> CastRevocationList {
            try await CastRevocationList.verified(bundle: list, trustAnchors: listAnchors, at: listTime)
        }
        func code(_ body: () async throws -> Void) async -> CastTransportError.Code? {
            await transportErrorCode(body)
        }
        let enforcing = DeviceAuthVerifier(trustAnchors: anchors, revocationTrustAnchors: listAnchors)
        let requiring = DeviceAuthVerifier(
            trustAnchors: anchors, revocationTrustAnchors: listAnchors, requiresRevocationList: true)

        switch test.expectedResult {
        case .success:
            let verified = try await chain()
            if list.isEmpty {
                #expect(try await enforcing.checkRevocation(of: verified, list: [], at: certificateTime) == .noList)
            } else {
                try await verifiedList().check(chain: verified, at: certificateTime)
                #expect(try await requiring.checkRevocation(of: verified, list: list, at: certificateTime) == .passed)
            }
        case .pathVerificationFailed:
            #expect(await code { _ = try await chain() } == .untrustedCertificateChain, "\(name)")
        case .crlVerificationFailed:
            #expect(await code { _ = try await verifiedList() } == .revocationListInvalid, "\(name)")
        case .revocationCheckFailed:
            let verified = try await chain()
            let revocations = try await verifiedList()
            #expect(await code { try revocations.check(chain: verified, at: certificateTime) } == .certificateRevoked)
            // Chrome's default policy enforces a list that verifies.
            #expect(
                await code { _ = try await enforcing.checkRevocation(of: verified, list: list, at: certificateTime) }
                    == .certificateRevoked, "\(name)")
        case .revocationCheckFailedWithoutCrl:
            let verified = try await chain()
            #expect(
                await code { _ = try await requiring.checkRevocation(of: verified, list: [], at: certificateTime) }
                    == .revocationListInvalid)
            #expect(try await enforcing.checkRevocation(of: verified, list: [], at: certificateTime) == .noList)
        case .crlExpiredAfterInitialVerification:
            let verified = try await chain()
            let revocations = try await verifiedList()
            #expect(await code { try revocations.check(chain: verified, at: certificateTime) } == .certificateRevoked)
        case .unspecified:
            Issue.record("\(name) has no expected result")
        }
    }

    /// Chromium's own production list (`kCastFallbackCRLs`), signed under
    /// Google's Cast CRL Root CA: it verifies while it applies, not after,
    /// and not under another CRL root.
    @Test func chromiumsProductionListVerifiesUnderGooglesCRLRoot() async throws {
        let bundle = try Self.resource("chromium_fallback_crl_2023.pb")
        let google = [try #require(CastRootCertificates.castCRLRootCA)]
        let august5 = Self.date(1_691_236_800)
        let list = try await CastRevocationList.verified(bundle: bundle, trustAnchors: google, at: august5)
        #expect(list.revokedKeyHashes.count == 13)
        let ranges = list.revokedSerials.values.joined()
        #expect(Set(ranges) == [1_433_968_296...1_433_968_296, 1_433_890_467...1_433_890_467])
        let after = await transportErrorCode {
            _ = try await CastRevocationList.verified(
                bundle: bundle, trustAnchors: google, at: Self.date(1_691_828_817))
        }
        #expect(after == .revocationListInvalid)
        let otherRoot = await transportErrorCode {
            _ = try await CastRevocationList.verified(
                bundle: bundle, trustAnchors: try Self.certificates("cast_crl_test_root_ca.pem"), at: august5)
        }
        #expect(otherRoot == .revocationListInvalid)
    }

    @Test(arguments: [
        [UInt8](), Array("not a protobuf".utf8), [0x0A, 0x03, 0x0A, 0x01, 0xFF],
    ])
    func garbageIsAnInvalidList(bytes: [UInt8]) async throws {
        let google = [try #require(CastRootCertificates.castCRLRootCA)]
        let code = await transportErrorCode {
            _ = try await CastRevocationList.verified(bundle: bytes, trustAnchors: google, at: Date())
        }
        #expect(code == .revocationListInvalid)
    }

    @Test func serialNumbersAreReadAsChromeReadsThem() {
        #expect(CastRevocationList.unsignedSerial(.init(bytes: [0x1D])) == 29)
        #expect(CastRevocationList.unsignedSerial(.init(bytes: [0x00, 0xFF])) == 255)
        #expect(CastRevocationList.unsignedSerial(.init(bytes: [0x00])) == 0)
        #expect(CastRevocationList.unsignedSerial(.init(bytes: [0x00] + [UInt8](repeating: 0xFF, count: 8))) == .max)
        #expect(CastRevocationList.unsignedSerial(.init(bytes: [0x01] + [UInt8](repeating: 0, count: 8))) == nil)
    }

    // MARK: The emulator sending a list

    /// The emulator's shared identity and the shared test CRL authority.
    static func credentials() throws -> (identity: ReceiverIdentity, issuer: RevocationListIssuer) {
        (try ReceiverIdentity.shared(), try RevocationListIssuer.shared())
    }

    /// An emulator whose device-auth replies carry `list`, and a connection
    /// whose policy trusts its root and the shared CRL authority's root.
    static func emulator(
        sending list: [UInt8]?,
        requirement: DeviceAuthenticationPolicy.Requirement,
        requiresList: Bool = false,
        _ body: (CastConnection) async throws -> Void
    ) async throws {
        var (identity, issuer) = try Self.credentials()
        identity.revocationList = list
        try await EmulatorFixture.with(CastEmulatorConfiguration(identity: identity)) { fixture in
            let policy = DeviceAuthenticationPolicy(
                requirement: requirement, trustAnchors: [identity.rootCertificate], timeout: .seconds(20),
                revocationTrustAnchors: [issuer.rootCertificate], requiresRevocationList: requiresList)
            let connection = fixture.connection(CastConnectionConfiguration(deviceAuthentication: policy))
            try await body(connection)
            await connection.close()
        }
    }

    /// What the connection's device authentication found, once connected.
    static func verified(_ connection: CastConnection) async -> VerifiedDevice? {
        guard case .verified(let device) = await connection.deviceVerification else {
            Issue.record("expected verified, got \(await connection.deviceVerification)")
            return nil
        }
        return device
    }

    @Test func aDeviceRevokedByItsOwnListIsRefused() async throws {
        let (identity, issuer) = try Self.credentials()
        let list = try issuer.revocationList(revoking: [identity.deviceCertificate])
        try await Self.emulator(sending: list, requirement: .required) { connection in
            #expect(await transportErrorCode { try await connection.connect() } == .certificateRevoked)
            #expect(await disconnectReason(of: connection) == .certificateRevoked)
        }
    }

    @Test func aRevokedIntermediateIsReportedWhenVerificationIsOptional() async throws {
        let (identity, issuer) = try Self.credentials()
        let list = try issuer.revocationList(revoking: [identity.intermediateCertificate])
        try await Self.emulator(sending: list, requirement: .optional) { connection in
            try await connection.connect()
            guard case .unverified(let error) = await connection.deviceVerification else {
                Issue.record("expected unverified, got \(await connection.deviceVerification)")
                return
            }
            #expect(error.code == .certificateRevoked)
        }
    }

    @Test func aListRevokingOthersPasses() async throws {
        let stranger = try ReceiverIdentity.generate(name: "Stranger")
        let list = try Self.credentials().issuer.revocationList(revoking: [stranger.deviceCertificate])
        try await Self.emulator(sending: list, requirement: .required) { connection in
            try await connection.connect()
            #expect(await Self.verified(connection)?.revocation == .passed)
        }
    }

    @Test func noListIsRecordedAsNone() async throws {
        try await Self.emulator(sending: nil, requirement: .required) { connection in
            try await connection.connect()
            #expect(await Self.verified(connection)?.revocation == VerifiedDevice.RevocationCheck.noList)
        }
    }

    /// A list under a root the sender does not trust is no list: the device
    /// verifies without it, unless a list is required.
    @Test(arguments: [false, true]) func aListUnderAnotherRootCountsAsNone(requiresList: Bool) async throws {
        let other = try RevocationListIssuer.generate(name: "Other")
        let list = try other.revocationList(revoking: [try Self.credentials().identity.deviceCertificate])
        try await Self.emulator(sending: list, requirement: .required, requiresList: requiresList) { connection in
            if requiresList {
                #expect(await transportErrorCode { try await connection.connect() } == .revocationListInvalid)
                return
            }
            try await connection.connect()
            #expect(await Self.verified(connection)?.revocation == .invalidList)
        }
    }

    @Test func anExpiredListCountsAsNone() async throws {
        let (identity, issuer) = try Self.credentials()
        let list = try issuer.revocationList(
            revoking: [identity.deviceCertificate], validFrom: Date(timeIntervalSinceNow: -86_400 * 9),
            until: Date(timeIntervalSinceNow: -86_400 * 2))
        try await Self.emulator(sending: list, requirement: .required) { connection in
            try await connection.connect()
            #expect(await Self.verified(connection)?.revocation == .invalidList)
        }
    }
}
