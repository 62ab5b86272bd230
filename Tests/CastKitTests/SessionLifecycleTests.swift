import CastEmulator
import CastKit
import CastRemoteDisplay
import CastTestSupport
import Testing

/// Starting, joining, leaving and stopping sessions end to end over TLS against the emulator.
@Suite(.timeLimit(.minutes(3))) struct SessionLifecycleTests {
    @Test func startingLaunchesTheAppAndAttachesItsChannels() async throws {
        try await SessionFixture.with(
            SessionFixture.options(applicationID: echoApplication.appID), authenticating: true
        ) {
            fixture in
            fixture.echo()
            let secondListener = SessionEventLog(fixture.manager.events())
            let session = try await fixture.manager.startSession(on: fixture.device)
            #expect(await fixture.manager.currentSession === session)
            #expect(session.state == .connected)
            #expect(session.isVerifiedDevice)
            if case .verified(let device) = session.deviceVerification {
                #expect(device.commonName == "Cast Emulator Device")
            }
            let running = try #require(fixture.emulator.runningApplication)
            #expect(running.application.appID == echoApplication.appID)
            #expect(session.sessionID == running.sessionID)
            #expect(session.application?.transportID == running.transportID)
            #expect(await fixture.log.labels(through: "started") == ["starting", "started"])
            #expect(await secondListener.wait(for: "started") != nil)

            // A channel added after the start attaches at once; text and binary round trips.
            let echo = try GenericChannel(namespace: echoNamespace)
            session.add(echo)
            #expect(echo.isConnected)
            #expect(try await roundTrip(echo, "hello") == .string("echo:hello"))
            let binary = echo.messages()
            try await echo.sendBinaryMessage([1, 2, 3])
            #expect(await first(binary) { _ in true } == .binary([3, 2, 1]))

            // A channel the app does not list stays disconnected.
            let foreign = try GenericChannel(namespace: "urn:x-cast:com.example.unlisted")
            session.add(foreign)
            #expect(!foreign.isConnected)
            #expect(!session.supports(namespace: "urn:x-cast:com.example.unlisted"))
        }
    }

    /// By default a session checks the device against Google's Cast roots and
    /// says what it found; the emulator, with its own test root, is unverified but used.
    @Test func aSessionReportsAnUnverifiedDevice() async throws {
        var options = SessionFixture.options()
        options.deviceAuthentication = .verifying
        try await SessionFixture.with(options) { fixture in
            let session = try await fixture.manager.startSession(on: fixture.device)
            #expect(session.state == .connected)
            #expect(!session.isVerifiedDevice)
            guard case .unverified(let failure) = session.deviceVerification else {
                Issue.record("expected an unverified device, got \(session.deviceVerification)")
                return
            }
            #expect(failure.code == .untrustedCertificateChain)
        }
    }

    @Test func channelsAddedBeforeTheSessionConnectWithIt() async throws {
        try await SessionFixture.with(SessionFixture.options(applicationID: echoApplication.appID)) { fixture in
            fixture.echo()
            let echo = try GenericChannel(namespace: echoNamespace)
            let connections = echo.connectionEvents()
            // The manager hands out the session before it connects only through events; add on `starting`.
            let events = fixture.manager.events()
            let starting = Task {
                for await event in events {
                    if case .starting(let session) = event {
                        session.add(echo)
                        return
                    }
                }
            }
            let session = try await fixture.manager.startSession(on: fixture.device)
            await starting.value
            #expect(await first(connections) { $0 == .connected } == .connected)
            #expect(session.channels.count == 1)
            #expect(try await roundTrip(echo, "early") == .string("echo:early"))
        }
    }

    @Test func aRunningAppIsJoinedNotRelaunched() async throws {
        try await SessionFixture.with { fixture in
            let running = try fixture.emulator.launch(appID: CastApplicationID.defaultMediaReceiver)
            let observed = fixture.emulator.events()
            let session = try await fixture.manager.startSession(on: fixture.device)
            #expect(session.sessionID == running.sessionID)
            #expect(fixture.emulator.runningApplication?.sessionID == running.sessionID)
            await fixture.manager.endSession()
            // Everything the sender said, through its CLOSE on leaving: no LAUNCH among it.
            let texts = await collect(observed, count: .max, within: .seconds(1)) { event -> String? in
                if case .messageReceived(_, let message) = event { return message.text }
                return nil
            }
            #expect(texts.contains { $0.contains("\"CLOSE\"") })
            #expect(!texts.contains { $0.contains("\"LAUNCH\"") })
        }
    }

    @Test func leavingKeepsTheAppRunningAndStoppingStopsIt() async throws {
        try await SessionFixture.with { fixture in
            let first = try await fixture.manager.startSession(on: fixture.device)
            await fixture.manager.endSession()
            #expect(first.state == .ended)
            #expect(await fixture.manager.currentSession == nil)
            #expect(fixture.emulator.runningApplication?.sessionID == first.sessionID)
            #expect(
                await fixture.log.labels(through: "ended(requested)") == [
                    "starting", "started", "ending", "ended(requested)",
                ])

            let second = try await fixture.manager.startSession(on: fixture.device)
            #expect(second.sessionID == first.sessionID)
            await fixture.manager.endSession(stoppingApplication: true)
            #expect(fixture.emulator.runningApplication == nil)
        }
    }

    @Test func volumeAndMuteGoThroughTheSessionsReceiverChannel() async throws {
        try await SessionFixture.with { fixture in
            let session = try await fixture.manager.startSession(on: fixture.device)
            try await session.receiver.setVolume(0.4)
            try await session.receiver.setMuted(true)
            #expect(fixture.emulator.volume == ReceiverVolume(level: 0.4, isMuted: true))
            #expect(session.receiver.status?.volume.isMuted == true)
        }
    }

    @Test func startingASecondSessionReplacesTheFirst() async throws {
        try await SessionFixture.with { fixture in
            let first = try await fixture.manager.startSession(on: fixture.device)
            let second = try await fixture.manager.startSession(on: fixture.device)
            #expect(first.state == .ended)
            #expect(second.state == .connected)
            #expect(
                await fixture.log.labels(through: "started", occurrence: 2) == [
                    "starting", "started", "ending", "ended(replaced)", "starting", "started",
                ])
        }
    }

    @Test func appAvailabilityIsAskedOfTheDevice() async throws {
        try await SessionFixture.with { fixture in
            #expect(await fixture.manager.availability(on: fixture.device) == .available)
            #expect(await fixture.manager.availability(ofApplication: "0000FFFF", on: fixture.device) == .unavailable)
            var gone = fixture.device
            gone.port = 1
            #expect(await fixture.manager.availability(on: gone) == .unknown)
        }
    }

    @Test func remoteDisplaySupportNeedsVideoOutAndTheMirroringApp() async throws {
        try await SessionFixture.with { fixture in
            var video = fixture.device
            video.capabilities = [.videoOut, .audioOut]
            #expect(await fixture.manager.isRemoteDisplaySupported(on: video))
            #expect(await !fixture.manager.isRemoteDisplaySupported(on: fixture.device))
            _ = try await fixture.manager.startSession(on: fixture.device)
            #expect(await fixture.manager.isRemoteDisplaySupported(on: video))
            // The configuration's app id is the one asked about (seed 002: "a Remote Display App ID is required").
            #expect(await !fixture.manager.isRemoteDisplaySupported(on: video, applicationID: "0000FFFF"))
            #expect(
                await fixture.manager.isRemoteDisplaySupported(
                    on: video, applicationID: RemoteDisplayConfiguration().applicationID))
        }
        let audioOnly = CastEmulatorConfiguration(applications: [.defaultMediaReceiver])
        try await SessionFixture.with(emulator: audioOnly) { fixture in
            var video = fixture.device
            video.capabilities = [.videoOut]
            #expect(await !fixture.manager.isRemoteDisplaySupported(on: video))
        }
    }
}
