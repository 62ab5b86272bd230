import CastEmulator
import CastTestSupport
import Testing
import X509

@_spi(Receiver) @testable import CastTransport

/// Device authentication against the emulator's test CA, and every failure.
@Suite(.timeLimit(.minutes(3))) struct DeviceAuthenticationTests {
    /// A policy whose timeout is generous, so a slow machine (or TSan) never turns a verdict into a timeout;
    /// the no-reply case shortens it.
    static func policy(
        _ anchors: [Certificate],
        _ requirement: DeviceAuthenticationPolicy.Requirement = .required,
        timeout: Duration = .seconds(20)
    )
        -> DeviceAuthenticationPolicy
    {
        DeviceAuthenticationPolicy(requirement: requirement, trustAnchors: anchors, timeout: timeout)
    }

    /// Over TLS on a socket, and in memory, where the emulator signs over
    /// the certificate its TLS would present.
    @Test(arguments: [true, false]) func aGenuineReceiverAuthenticates(overNetwork: Bool) async throws {
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection(
                CastConnectionConfiguration(deviceAuthentication: Self.policy([fixture.emulator.trustAnchor])),
                overNetwork: overNetwork)
            let states = connection.stateUpdates()
            try await connection.connect()
            #expect(await connection.currentState.description == "authenticated")
            await connection.close()
            #expect(
                await Array(states).map(\.description) == [
                    "idle", "connecting", "connected", "authenticated", "disconnected(closed)",
                ])
        }
    }

    @Test(arguments: [
        (DeviceAuthFault.wrongSigningKey, CastTransportError.Code.signatureInvalid),
        (.errorReply, .authenticationRejected),
        (.malformedReply, .malformedAuthResponse),
    ])
    func eachReplyFaultHasItsOwnError(fault: DeviceAuthFault, expected: CastTransportError.Code) async throws {
        try await EmulatorFixture.with { fixture in
            fixture.emulator.faults.deviceAuthentication = fault
            let connection = fixture.connection(
                CastConnectionConfiguration(
                    deviceAuthentication: Self.policy([fixture.emulator.trustAnchor], timeout: .seconds(20))
                )
            )
            #expect(await transportErrorCode { try await connection.connect() } == expected)
            #expect(await disconnectReason(of: connection) == expected)
        }
    }

    /// A device that never answers the challenge, at virtual time: still
    /// waiting a millisecond before the policy's timeout, refused at it.
    /// (Before: a real 500 ms timeout.)
    @Test func noReplyTimesOutAtThePolicysTimeout() async throws {
        try await EmulatorFixture.with { fixture in
            fixture.emulator.faults.deviceAuthentication = .noReply
            let clock = ManualClock()
            let connection = fixture.connection(
                CastConnectionConfiguration(
                    deviceAuthentication: Self.policy([fixture.emulator.trustAnchor], timeout: .seconds(5)),
                    clock: clock))
            async let connecting = transportErrorCode { try await connection.connect() }
            await clock.sleeper(until: ManualClock.Instant(offset: .seconds(5)))
            clock.advance(by: .seconds(5) - .milliseconds(1))
            #expect(await connection.currentState.description == "connected")
            clock.advance(by: .milliseconds(1))
            #expect(await connecting == .authenticationTimedOut)
            #expect(await disconnectReason(of: connection) == .authenticationTimedOut)
        }
    }

    /// Audit row 3: Chrome accepts a reply whose nonce is empty (legacy
    /// receivers) or different, and checks the signature over the nonce the
    /// device echoed; `requiresNonce` refuses both. Before, both failed with
    /// `nonceMismatch` whatever the policy.
    @Test(arguments: [DeviceAuthFault.emptyNonce, .wrongNonce])
    func anEchoedNonceOtherThanOursPassesUnlessTheAppRequiresIt(fault: DeviceAuthFault) async throws {
        try await EmulatorFixture.with { fixture in
            fixture.emulator.faults.deviceAuthentication = fault
            let lenient = fixture.connection(
                CastConnectionConfiguration(deviceAuthentication: Self.policy([fixture.emulator.trustAnchor])))
            try await lenient.connect()
            #expect(await lenient.currentState.description == "authenticated")
            await lenient.close()

            var strictPolicy = Self.policy([fixture.emulator.trustAnchor])
            strictPolicy.requiresNonce = true
            let strict = fixture.connection(CastConnectionConfiguration(deviceAuthentication: strictPolicy))
            #expect(await transportErrorCode { try await strict.connect() } == .nonceMismatch)
        }
    }

    @Test(arguments: [
        (TLSCertificateValidity.expired, CastTransportError.Code.peerCertificateExpired),
        (.notYetValid, .peerCertificateNotYetValid),
        (.tooLong, .peerCertificateLifetimeTooLong),
    ])
    func badlyDatedTLSCertificatesAreRejected(validity: TLSCertificateValidity, expected: CastTransportError.Code)
        async throws
    {
        try await EmulatorFixture.with(CastEmulatorConfiguration(tlsCertificateValidity: validity)) { fixture in
            let connection = fixture.connection(
                CastConnectionConfiguration(deviceAuthentication: Self.policy([fixture.emulator.trustAnchor]))
            )
            #expect(await transportErrorCode { try await connection.connect() } == expected)
        }
    }

    @Test func aChainToAnotherRootIsUntrusted() async throws {
        let stranger = try ReceiverIdentity.generate(name: "Stranger")
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection(
                CastConnectionConfiguration(deviceAuthentication: Self.policy([stranger.rootCertificate]))
            )
            #expect(await transportErrorCode { try await connection.connect() } == .untrustedCertificateChain)
            let unanchored = fixture.connection(CastConnectionConfiguration(deviceAuthentication: Self.policy([])))
            #expect(await transportErrorCode { try await unanchored.connect() } == .untrustedCertificateChain)
        }
    }

    @Test func anOptionalPolicyRecordsTheFailureAndStaysConnected() async throws {
        try await EmulatorFixture.with { fixture in
            fixture.emulator.faults.deviceAuthentication = .wrongSigningKey
            let connection = fixture.connection(
                CastConnectionConfiguration(
                    deviceAuthentication: Self.policy([fixture.emulator.trustAnchor], .optional)
                )
            )
            try await connection.connect()
            #expect(await connection.currentState.description == "connected")
            #expect(await connection.authenticationFailure?.code == .signatureInvalid)
            await connection.close()
        }
    }
}
