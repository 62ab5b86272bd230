import CastChannels
import CastEmulator
import CastTestSupport
@_spi(Receiver) import CastTransport
import Testing

/// The receiver channel against emulator profiles that answer as real
/// receivers other than a Chromecast do (audit rows 6, 11, 12, 13, 15).
/// Each test failed on the code before the audit's fixes: a launch or a stop
/// that never saw a reply carrying its `requestId` waited for its timeout.
@Suite(.timeLimit(.minutes(3))) struct ReceiverProfileTests {
    /// Timeouts far below the 60 s default launch timeout, so a request that
    /// waits for a reply that never comes fails in bounded time, yet well
    /// above what a real reply takes at the busy start of a full run, where
    /// every suite starts at once on two cores (CI once held a reply for more
    /// than 3 s). A sanitizer build is 5–15 times slower.
    static func impatientReceiver() -> ReceiverChannel {
        let timeout: Duration = Sanitizers.areActive ? .seconds(45) : .seconds(20)
        return ReceiverChannel(requestTimeout: timeout, launchTimeout: timeout)
    }

    /// Row 12, conformance 029: a Nest Hub answers LAUNCH with LAUNCH_STATUS
    /// keyed by `launchRequestId`, then only a `requestId` 0 broadcast.
    @Test func aLaunchAnsweredByLaunchStatusAndABroadcastSucceeds() async throws {
        try await ChannelFixture.with(
            CastEmulatorConfiguration(profile: .nestHub), receiver: Self.impatientReceiver()
        ) { fixture in
            let events = fixture.receiver.events()
            let launched = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            #expect(launched.sessionID == fixture.emulator.runningApplication?.sessionID)
            let progress = await first(events) { event in
                if case .launchStatusChanged = event { true } else { false }
            }
            #expect(progress == .launchStatusChanged(.userAllowed))
        }
    }

    /// Rows 6 and 12 against Open Screen's receiver: LAUNCH_STATUS with
    /// `launchRequestId` after the broadcast, and STOP answered by the
    /// broadcast alone (application_agent.cc:293-304).
    @Test func openScreenLaunchesAndStopsWithoutRepliesToStop() async throws {
        try await ChannelFixture.with(
            CastEmulatorConfiguration(profile: .openScreen), receiver: Self.impatientReceiver()
        ) { fixture in
            let launched = try await fixture.receiver.launch(appID: CastApplicationID.mirroring)
            #expect(launched.appID == CastApplicationID.mirroring)
            let stopped = try await fixture.receiver.stop(sessionID: try #require(launched.sessionID))
            #expect(stopped.applications.isEmpty)
            #expect(fixture.emulator.runningApplication == nil)
        }
    }

    /// Open Screen's receiver knows only the two mirroring apps and has no SET_VOLUME.
    @Test func openScreenRefusesOtherAppsAndVolume() async throws {
        try await ChannelFixture.with(CastEmulatorConfiguration(profile: .openScreen)) { fixture in
            let launch = await #expect(throws: CastChannelError.self) {
                try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            }
            #expect(launch?.launchErrorReason == .notFound)
            let volume = await #expect(throws: CastChannelError.self) { try await fixture.receiver.setVolume(0.5) }
            #expect(volume?.code == .invalidRequest)
            let audio = try await fixture.receiver.launch(appID: CastApplicationID.audioMirroring)
            #expect(audio.supports(namespace: CastNamespace.webrtc))
        }
    }

    /// Row 12: a LAUNCH_ERROR keyed only by `launchRequestId` ends the launch
    /// with its reason (Chrome's `GetRequestIdFromResponse` falls back to it).
    @Test func aLaunchErrorKeyedByLaunchRequestIDEndsTheLaunch() async throws {
        try await ChannelFixture.with(receiver: Self.impatientReceiver()) { fixture in
            fixture.emulator.respond(to: CastNamespace.receiver) { request in
                guard let json = try? JSONValue(parsing: request.text ?? ""), let id = json["requestId"] else {
                    return []
                }
                let reply: JSONValue =
                    json["type"] == "LAUNCH"
                    ? ["type": "LAUNCH_ERROR", "launchRequestId": id, "reason": "NOT_ALLOWED"]
                    : ["type": "RECEIVER_STATUS", "requestId": id, "status": ["volume": ["level": 1]]]
                return [Self.reply(reply, to: request)]
            }
            let error = await #expect(throws: CastChannelError.self) {
                try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            }
            #expect(error?.code == .launchFailed)
            #expect(error?.reason == "NOT_ALLOWED")
        }
    }

    /// Row 13: message types compare without regard to case, as Open Screen's
    /// and Chrome's parsers upper-case them.
    @Test func aLowerCaseMessageTypeIsUnderstood() async throws {
        try await ChannelFixture.with(receiver: Self.impatientReceiver()) { fixture in
            fixture.emulator.respond(to: CastNamespace.receiver) { request in
                guard let json = try? JSONValue(parsing: request.text ?? ""), let id = json["requestId"] else {
                    return []
                }
                let status: JSONValue = ["volume": ["level": 0.25, "muted": false]]
                return [Self.reply(["type": "receiver_status", "requestId": id, "status": status], to: request)]
            }
            let status = try await fixture.receiver.requestStatus()
            #expect(status.volume.level == 0.25)
        }
    }

    /// Row 11: Chrome opens invisible virtual connections to apps and a strong one to `receiver-0`.
    @Test func appConnectionsAreInvisibleAndThePlatformsStrong() async throws {
        try await ChannelFixture.with { fixture in
            let app = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            let transportID = try #require(app.transportID)
            let events = fixture.emulator.events()
            try await fixture.connection.openVirtualConnection(to: transportID)
            let opened = await first(events) { event in
                if case .virtualConnectionOpened(_, _, transportID, _) = event { true } else { false }
            }
            guard case .virtualConnectionOpened(_, _, _, let type)? = opened else {
                Issue.record("no CONNECT to the app reached the emulator")
                return
            }
            #expect(type == .invisible)
        }
    }

    /// Row 15: the CONNECT names protocol versions, so Open Screen's receiver answers CONNECTED.
    @Test func openScreenAnswersConnectWithConnected() async throws {
        try await ChannelFixture.with(CastEmulatorConfiguration(profile: .openScreen)) { fixture in
            let app = try await fixture.receiver.launch(appID: CastApplicationID.mirroring)
            let replies = fixture.connection.messages(namespace: TransportNamespace.connection)
            try await fixture.connection.openVirtualConnection(to: try #require(app.transportID))
            let connected = await first(replies) { message in
                (try? JSONValue(parsing: message.text ?? ""))?["type"] == "CONNECTED"
            }
            let json = try JSONValue(parsing: try #require(connected?.text))
            #expect(json["protocolVersion"] == 3)
        }
    }

    static func reply(_ json: JSONValue, to request: CastMessage) -> CastMessage {
        CastMessage(
            namespace: request.namespace, sourceID: request.destinationID, destinationID: request.sourceID,
            payload: .string((try? json.jsonText()) ?? "{}"))
    }
}
