import CastEmulator
import Crypto
import Foundation
import Testing
import X509

@_spi(Receiver) @testable import CastTransport

/// Device verification against Google's Cast roots, as Chrome and Open
/// Screen do (issue 20): real device chains from Open Screen's test data, and
/// the emulator, which signs with its own test root.
@Suite(.timeLimit(.minutes(3))) struct VerifiedDeviceTests {
    /// A chain from `CastDeviceChains/`: the device certificate, then its intermediates.
    static func chain(_ name: String) throws -> (device: Certificate, intermediates: [Certificate]) {
        let url = try #require(Bundle.module.url(forResource: "CastDeviceChains/\(name)", withExtension: "pem"))
        // The files keep Open Screen's line lengths, which the SDK's reader takes.
        let certificates = try DeviceAuthenticationPolicy.certificates(inPEMFile: url.path)
        return (try #require(certificates.first), Array(certificates.dropFirst()))
    }

    /// 2016-04-01, when Open Screen's validator tests verify these chains (`AprilFirst2016()`).
    static let aprilFirst2016 = Date(timeIntervalSince1970: 1_459_468_800)

    @Test func theBundledRootsAreGooglesCastRoots() throws {
        #expect(CastRootCertificates.all.count == 2)
        let names = CastRootCertificates.all.map { "\($0.subject)" }
        #expect(names.contains { $0.contains("Cast Root CA") })
        #expect(names.contains { $0.contains("Eureka Root CA") })
    }

    @Test func aFirstGenerationChromecastVerifiesThroughTheEurekaRoot() async throws {
        let (device, intermediates) = try Self.chain("chromecast_gen1")
        let verified = try await DeviceAuthVerifier.verifyChain(
            device: device, intermediates: intermediates, trustAnchors: CastRootCertificates.all,
            at: Self.aprilFirst2016
        ).device
        #expect(verified.commonName == "2ZZBG9 FA8FCA3EF91A")
        #expect(verified.isAudioOnly == false)
        #expect(verified.model != nil)
        // Its chain is still valid today (until 2032).
        _ = try await DeviceAuthVerifier.verifyChain(
            device: device, intermediates: intermediates, trustAnchors: CastRootCertificates.all, at: Date())
    }

    @Test func aChromecastAudioIsAudioOnly() async throws {
        let (device, intermediates) = try Self.chain("chromecast_audio")
        let verified = try await DeviceAuthVerifier.verifyChain(
            device: device, intermediates: intermediates, trustAnchors: CastRootCertificates.all,
            at: Self.aprilFirst2016
        ).device
        #expect(verified.commonName == "4ZZDZJ FA8FCA7EFE3C")
        #expect(verified.isAudioOnly)
    }

    @Test func anExpiredIntermediateOrAnotherRootIsRefused() async throws {
        let (gen2, gen2Intermediates) = try Self.chain("chromecast_gen2")
        // Chromecast ICA 3 expired on 2025-03-09.
        let expired = await #expect(throws: CastTransportError.self) {
            try await DeviceAuthVerifier.verifyChain(
                device: gen2, intermediates: gen2Intermediates, trustAnchors: CastRootCertificates.all,
                at: Date(timeIntervalSince1970: 1_767_225_600))
        }
        #expect(expired?.code == .untrustedCertificateChain)
        let (gen1, gen1Intermediates) = try Self.chain("chromecast_gen1")
        let stranger = try ReceiverIdentity.generate(name: "Stranger")
        let untrusted = await #expect(throws: CastTransportError.self) {
            try await DeviceAuthVerifier.verifyChain(
                device: gen1, intermediates: gen1Intermediates, trustAnchors: [stranger.rootCertificate],
                at: Self.aprilFirst2016)
        }
        #expect(untrusted?.code == .untrustedCertificateChain)
    }

    /// A certificate for `key`, signed by `issuerKey` (ECDSA P-256).
    static func certificate(
        _ subject: DistinguishedName, key: P256.Signing.PrivateKey, issuer: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey, from: Date, until: Date, extensions: Certificate.Extensions
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: from, notValidAfter: until, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(issuerKey))
    }

    static let day: TimeInterval = 86_400

    /// A CA's extensions: basicConstraints cA, keyCertSign, and `constraints` if any.
    static func authority(_ constraints: NameConstraints? = nil) throws -> Certificate.Extensions {
        var extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            KeyUsage(keyCertSign: true)
        }
        if let constraints { try extensions.append(Certificate.Extension(constraints, critical: true)) }
        return extensions
    }

    /// A root, an intermediate with `constraints` and a device named `device`
    /// (with `alternativeNames`), verified now.
    static func verify(
        device: DistinguishedName, alternativeNames: [GeneralName] = [], under constraints: NameConstraints
    ) async throws -> VerifiedDevice {
        let now = Date()
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Test Root") }
        let intermediateName = try DistinguishedName { CommonName("Constrained ICA") }
        let root = try Self.certificate(
            rootName, key: rootKey, issuer: rootName, issuerKey: rootKey, from: now - Self.day, until: now + Self.day,
            extensions: try Self.authority())
        let intermediate = try Self.certificate(
            intermediateName, key: intermediateKey, issuer: rootName, issuerKey: rootKey, from: now - Self.day,
            until: now + Self.day, extensions: try Self.authority(constraints))
        var extensions = try Certificate.Extensions { KeyUsage(digitalSignature: true) }
        if !alternativeNames.isEmpty {
            try extensions.append(Certificate.Extension(SubjectAlternativeNames(alternativeNames), critical: false))
        }
        let leaf = try Self.certificate(
            device, key: P256.Signing.PrivateKey(), issuer: intermediateName, issuerKey: intermediateKey,
            from: now - Self.day, until: now + Self.day, extensions: extensions)
        return try await DeviceAuthVerifier.verifyChain(
            device: leaf, intermediates: [intermediate], trustAnchors: [root], at: now
        ).device
    }

    /// A chain whose trust anchor has passed its notAfter still verifies, as in
    /// Chrome, which does not enforce an anchor's validity period (Chromium
    /// `net/data/verify_certificate_chain_unittest/expired-root`, and
    /// `cast_cert_validator.cc` adds the Cast roots with
    /// `CertificateTrust::ForTrustAnchor()`); an expired intermediate or
    /// device certificate under the same anchor is still refused.
    @Test func anExpiredTrustAnchorStillAnchorsButNothingElseMayExpire() async throws {
        let now = Date()
        let day = Self.day
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Expired Root") }
        let intermediateName = try DistinguishedName { CommonName("Test ICA") }
        // The root expired yesterday.
        let root = try Self.certificate(
            rootName, key: rootKey, issuer: rootName, issuerKey: rootKey, from: now - 400 * day, until: now - day,
            extensions: try Self.authority())
        func chain(intermediateUntil: Date, deviceUntil: Date) throws -> (Certificate, Certificate) {
            let intermediate = try Self.certificate(
                intermediateName, key: intermediateKey, issuer: rootName, issuerKey: rootKey, from: now - 10 * day,
                until: intermediateUntil, extensions: try Self.authority())
            let device = try Self.certificate(
                try DistinguishedName { CommonName("Test Device") }, key: P256.Signing.PrivateKey(),
                issuer: intermediateName, issuerKey: intermediateKey, from: now - day, until: deviceUntil,
                extensions: try Certificate.Extensions { KeyUsage(digitalSignature: true) })
            return (device, intermediate)
        }

        let (device, intermediate) = try chain(intermediateUntil: now + 300 * day, deviceUntil: now + 30 * day)
        let verified = try await DeviceAuthVerifier.verifyChain(
            device: device, intermediates: [intermediate], trustAnchors: [root], at: now
        ).device
        #expect(verified.commonName == "Test Device")
        #expect(verified.issuerCommonNames == ["Test ICA", "Expired Root"])

        for (intermediateUntil, deviceUntil) in [(now - 1, now + 30 * day), (now + 300 * day, now - 1)] {
            let (device, intermediate) = try chain(intermediateUntil: intermediateUntil, deviceUntil: deviceUntil)
            let refused = await #expect(throws: CastTransportError.self) {
                try await DeviceAuthVerifier.verifyChain(
                    device: device, intermediates: [intermediate], trustAnchors: [root], at: now)
            }
            #expect(refused?.code == .untrustedCertificateChain)
        }
    }

    /// A trust anchor's path-length constraint binds the chain under it, as
    /// in Chromium's and Open Screen's Cast verifiers
    /// (`cast_cert_validator_unittest.cc`, ViolatesPathlenTrustAnchorConstraint),
    /// though its validity period does not: under a root with pathlen 1, a
    /// device under one intermediate verifies and one under two is refused.
    @Test func aChainLongerThanItsAnchorsPathLengthIsRefused() async throws {
        let now = Date()
        let day = Self.day
        let keys = (0..<3).map { _ in P256.Signing.PrivateKey() }
        let names = try ["Pathlen 1 Root", "First ICA", "Second ICA"].map { name in
            try DistinguishedName { CommonName(name) }
        }
        let rootExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 1))
            KeyUsage(keyCertSign: true)
        }
        let root = try Self.certificate(
            names[0], key: keys[0], issuer: names[0], issuerKey: keys[0], from: now - day, until: now + day,
            extensions: rootExtensions)
        let first = try Self.certificate(
            names[1], key: keys[1], issuer: names[0], issuerKey: keys[0], from: now - day, until: now + day,
            extensions: try Self.authority())
        let second = try Self.certificate(
            names[2], key: keys[2], issuer: names[1], issuerKey: keys[1], from: now - day, until: now + day,
            extensions: try Self.authority())
        func device(under issuer: Int) throws -> Certificate {
            try Self.certificate(
                try DistinguishedName { CommonName("Test Device") }, key: P256.Signing.PrivateKey(),
                issuer: names[issuer], issuerKey: keys[issuer], from: now - day, until: now + day,
                extensions: try Certificate.Extensions { KeyUsage(digitalSignature: true) })
        }
        let short = try await DeviceAuthVerifier.verifyChain(
            device: try device(under: 1), intermediates: [first], trustAnchors: [root], at: now
        ).device
        #expect(short.issuerCommonNames == ["First ICA", "Pathlen 1 Root"])
        let refused = await #expect(throws: CastTransportError.self) {
            try await DeviceAuthVerifier.verifyChain(
                device: try device(under: 2), intermediates: [second, first], trustAnchors: [root], at: now)
        }
        #expect(refused?.code == .untrustedCertificateChain)
    }

    /// An intermediate's nameConstraints bind the device as RFC 5280 and Chrome
    /// (BoringSSL `pki/name_constraints.cc`) say: a directoryName subtree
    /// permits a subject that starts with its RDNs, compared case-insensitively
    /// with spaces folded; an excluded subtree or a name outside every
    /// permitted one is refused. dNSName subtrees bind the device's DNS names.
    @Test func nameConstraintsAreHonouredNotRefused() async throws {
        let google = try DistinguishedName {
            CountryName("US")
            OrganizationName("Google Inc")
        }
        let permitted = NameConstraints(
            permittedSubtrees: [.directoryName(google), .dnsName("cast.example")],
            excludedSubtrees: [
                .directoryName(
                    try DistinguishedName {
                        CountryName("US")
                        OrganizationName("Google Inc")
                        OrganizationalUnitName("Revoked")
                    })
            ])
        let device = try DistinguishedName {
            CountryName("us")
            OrganizationName("google   inc ")
            CommonName("Living Room")
        }
        let verified = try await Self.verify(
            device: device, alternativeNames: [.dnsName("tv.Cast.Example")], under: permitted)
        #expect(verified.commonName == "Living Room")

        let outside = try DistinguishedName {
            CountryName("US")
            OrganizationName("Other Inc")
            CommonName("Living Room")
        }
        let excluded = try DistinguishedName {
            CountryName("US")
            OrganizationName("Google Inc")
            OrganizationalUnitName("revoked")
            CommonName("Living Room")
        }
        let refusals: [(DistinguishedName, [GeneralName])] = [
            (outside, []), (excluded, []), (device, [.dnsName("tv.other.example")]),
        ]
        for (name, alternativeNames) in refusals {
            let refused = await #expect(throws: CastTransportError.self) {
                try await Self.verify(device: name, alternativeNames: alternativeNames, under: permitted)
            }
            #expect(refused?.code == .untrustedCertificateChain, "\(name) \(alternativeNames)")
        }
    }

    /// By default a connection checks the device against Google's roots and
    /// reports — the emulator is not a Cast device — without refusing it.
    @Test func byDefaultAnUnverifiedDeviceIsReportedAndUsed() async throws {
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection(CastConnectionConfiguration())  // the default: verifying
            try await connection.connect()
            guard case .unverified(let failure) = await connection.deviceVerification else {
                Issue.record("the emulator passed as a Cast device")
                return
            }
            #expect(failure.code == .untrustedCertificateChain)
            #expect(await connection.verifiedDevice == nil)
            await connection.close()

            var policy = DeviceAuthenticationPolicy.verifying
            policy.trustAnchors.append(fixture.emulator.trustAnchor)
            let trusting = fixture.connection(CastConnectionConfiguration(deviceAuthentication: policy))
            try await trusting.connect()
            let verified = try #require(await trusting.verifiedDevice)
            #expect(verified.commonName == "Cast Emulator Device")
            #expect(verified.model == "Cast Emulator Test Intermediate CA")
            await trusting.close()

            let strict = fixture.connection(
                CastConnectionConfiguration(deviceAuthentication: .required(trusting: CastRootCertificates.all)))
            let refused = await #expect(throws: CastTransportError.self) { try await strict.connect() }
            #expect(refused?.code == .untrustedCertificateChain)
        }
    }
}
