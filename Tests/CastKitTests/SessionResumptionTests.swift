import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing

/// Sessions that come back in a new process, or on another device.
@Suite(.timeLimit(.minutes(3))) struct SessionResumptionTests {
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

    /// The seed (001): the context is made early "so that automatic session resumption on
    /// restart can work"; discovery starts by itself, passive until a chooser opens.
    @Test func aStartedContextDiscoversPassivelyAndResumesTheSavedSession() async throws {
        let store = FileSessionStore(fileURL: temporaryStoreURL())
        try await SessionFixture.with(SessionFixture.options(store: store)) { fixture in
            let original = try await fixture.manager.startSession(on: fixture.device)
            var options = SessionFixture.options(store: store)
            // No interface: nothing is multicast from a test outside a namespace.
            options.discovery.interfaces = .named([])
            #expect(options.discovery.scanMode == .passive)
            #expect(CastOptions().discovery.scanMode == .passive)

            let context = CastContext(options: options)
            let log = SessionEventLog(context.sessionManager.events())
            try await context.start()
            try await context.start()
            #expect(await context.discoveryManager.scanMode == .passive)
            await context.resumptionFinished()
            #expect(await log.labels(through: "resumed") == ["resuming", "resumed"])
            let resumed = try #require(await context.sessionManager.currentSession)
            #expect(resumed.sessionID == original.sessionID)
            #expect(resumed.state == .connected)
            await context.sessionManager.endSession()
            await context.stop()
        }
    }

    @Test func theDefaultStoreIsAFileInTheXDGStateDirectory() throws {
        let environment = ["XDG_STATE_HOME": "/tmp/state", "HOME": "/home/someone"]
        #expect(XDGDirectory.state.url(environment: environment).path == "/tmp/state")
        #expect(XDGDirectory.state.url(environment: ["HOME": "/home/someone"]).path == "/home/someone/.local/state")
        #expect(XDGDirectory.cache.url(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/h"]).path == "/h/.cache")
        let store = try #require(CastOptions().sessionStore as? FileSessionStore)
        #expect(store.fileURL == XDGDirectory.state.file("cast-session.json"))
        #expect(store.fileURL.path.hasSuffix("/\(ProcessInfo.processInfo.processName)/cast-session.json"))

        let nested = FileSessionStore(
            fileURL: FileManager.default.temporaryDirectory.appendingPathComponent(
                "cast-\(UUID().uuidString)/app/cast-session.json"))
        let saved = SavedSession(
            deviceID: "d", deviceName: "TV", applicationID: "CC1AD845", sessionID: "s", host: "127.0.0.1", port: 8009)
        try nested.save(saved)
        #expect(try nested.load() == saved)
        let mode = try FileManager.default.attributesOfItem(atPath: nested.fileURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try nested.clear()
        #expect(try nested.load() == nil)
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
