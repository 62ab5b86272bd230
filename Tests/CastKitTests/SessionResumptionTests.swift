import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing

/// Sessions that come back in a new process, or on another device.
@Suite struct SessionResumptionTests {
    @Test func aNewProcessWithTheSameStoreResumesTheSession() async throws {
        let store = FileSessionStore(fileURL: temporaryStoreURL())
        // The "crashed" process: it loses its connection and never cleans up (a reconnect far in the future).
        let crashing = SessionFixture.options(
            reconnect: ReconnectPolicy(initialDelay: .seconds(600), jitter: 0, maximumAttempts: 1), store: store)
        try await SessionFixture.with(crashing) { fixture in
            let original = try await fixture.manager.startSession(on: fixture.device)
            let saved = try #require(try store.load())
            #expect(saved.sessionID == original.sessionID)
            #expect(saved.deviceID == fixture.device.id)
            #expect(saved.applicationID == CastApplicationID.defaultMediaReceiver)
            #expect(saved.port == fixture.emulator.port)
            await fixture.emulator.closeConnections()
            #expect(await fixture.log.wait(for: "suspended(connectionLost)") != nil)

            // The new process: no discovery, only the store.
            let restarted = SessionManager(options: SessionFixture.options(store: store))
            let log = SessionEventLog(restarted.events())
            let resumed = try #require(try await restarted.resumeSavedSession())
            #expect(resumed.sessionID == original.sessionID)
            #expect(resumed.state == .connected)
            #expect(resumed.device.id == fixture.device.id)
            #expect(await log.labels(through: "resumed") == ["resuming", "resumed"])
            await restarted.endSession()
            #expect(try store.load() == nil)
        }
    }

    @Test func aSavedSessionWhoseAppStoppedIsForgotten() async throws {
        let store = FileSessionStore(fileURL: temporaryStoreURL())
        try await SessionFixture.with { fixture in
            let running = try fixture.emulator.launch(appID: CastApplicationID.defaultMediaReceiver)
            try store.save(
                SavedSession(
                    deviceID: fixture.device.id, deviceName: "Emulator",
                    applicationID: CastApplicationID.defaultMediaReceiver,
                    sessionID: running.sessionID, host: "127.0.0.1", port: fixture.emulator.port))
            fixture.emulator.stopApplication()
            let manager = SessionManager(options: SessionFixture.options(store: store))
            let error = await caughtError(CastSessionError.self) { try await manager.resumeSavedSession() }
            #expect(error?.code == .applicationNotRunning)
            #expect(try store.load() == nil)
            #expect(try await SessionManager(options: SessionFixture.options(store: store)).resumeSavedSession() == nil)
        }
    }

    @Test func aSessionMovedToAnotherDeviceResumesThere() async throws {
        try await SessionFixture.with(SessionFixture.options(applicationID: echoApplication.appID)) { fixture in
            let target = try CastEmulator(
                configuration: CastEmulatorConfiguration(
                    name: "Second Emulator", applications: EmulatedApplication.standard + [echoApplication]),
                logger: quietLogger)
            try await target.start()
            fixture.echo()
            fixture.echo(on: target)
            let other = await fixture.discovery.addKnownHost(
                try #require(IPAddress("127.0.0.1")), port: target.port, friendlyName: "Second Emulator")
            let session = try await fixture.manager.startSession(on: fixture.device)
            let echo = try GenericChannel(namespace: echoNamespace)
            session.add(echo)

            let moved = try fixture.emulator.moveApplication(to: target)
            #expect(moved.sessionID == session.sessionID)
            guard case .resumed(_, let device)? = await fixture.log.wait(for: "resumed") else {
                Issue.record("the session did not follow the app; events: \(fixture.log.labels)")
                await target.stop()
                return
            }
            #expect(device.id == other.id)
            #expect(session.device.id == other.id)
            #expect(session.sessionID == moved.sessionID)
            #expect(
                await fixture.log.labels(through: "resumed") == [
                    "starting", "started", "suspended(applicationMoved)", "resuming", "resumed",
                ])
            #expect(try await roundTrip(echo, "moved") == .string("echo:moved"))
            #expect(target.connectionCount == 1)
            await fixture.manager.endSession()
            await target.stop()
        }
    }
}
