import CastChannels
import CastEmulator
import CastTestSupport
@_spi(Receiver) import CastTransport
import Testing

/// The receiver channel over real TLS against the emulator's receiver platform.
@Suite(.timeLimit(.minutes(3))) struct ReceiverChannelTests {
    @Test func getStatusReportsTheIdleScreenAndVolume() async throws {
        try await ChannelFixture.with(CastEmulatorConfiguration(profile: .chromecast)) { fixture in
            let status = try await fixture.receiver.requestStatus()
            #expect(status.applications.map(\.appID) == [CastApplicationID.backdrop])
            #expect(status.applications.first?.isIdleScreen == true)
            #expect(status.runningApplication(appID: CastApplicationID.backdrop) == nil)
            #expect(status.volume.level == 1)
            #expect(status.volume.isMuted == false)
            #expect(status.volume.controlType == .attenuation)
            #expect(fixture.receiver.status == status)
        }
    }

    /// Newer devices leave `applications` out when idle and report their own
    /// volume model (conformance 011: Chromecast with Google TV, `fixed`).
    @Test func anIdleReceiverWithoutAnApplicationsKeyReportsNoApps() async throws {
        try await ChannelFixture.with { fixture in
            let status = try await fixture.receiver.requestStatus()
            #expect(status.applications.isEmpty)
            #expect(status.volume.controlType == .fixed)
            #expect(status.volume.stepInterval == 0.04)
        }
    }

    @Test func launchStartsTheAppAndJoinsItWhenItAlreadyRuns() async throws {
        try await ChannelFixture.with { fixture in
            let launched = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            #expect(launched.appID == CastApplicationID.defaultMediaReceiver)
            #expect(launched.supports(namespace: CastNamespace.media))
            let running = try #require(fixture.emulator.runningApplication)
            #expect(launched.sessionID == running.sessionID)
            #expect(launched.transportID == running.transportID)

            let joined = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            #expect(joined.sessionID == launched.sessionID)
            let relaunched = try await fixture.receiver.launch(
                appID: CastApplicationID.defaultMediaReceiver, options: LaunchOptions(relaunchIfRunning: true))
            #expect(relaunched.sessionID != launched.sessionID)
        }
    }

    @Test func launchSendsLanguageAppTypesAndParameters() async throws {
        try await ChannelFixture.with { fixture in
            let events = fixture.emulator.events()
            _ = try await fixture.receiver.launch(
                appID: CastApplicationID.defaultMediaReceiver,
                options: LaunchOptions(language: "de-DE", relaunchIfRunning: true, appParameters: ["k": "v"]))
            let launch = await first(events) { event in
                guard case .messageReceived(_, let message) = event, let text = message.text else { return false }
                return text.contains("\"LAUNCH\"")
            }
            guard case .messageReceived(_, let message)? = launch, let text = message.text else {
                Issue.record("the emulator saw no LAUNCH")
                return
            }
            let json = try JSONValue(parsing: text)
            #expect(json["language"] == "de-DE")
            #expect(json["supportedAppTypes"] == ["WEB"])
            #expect(json["appParams"] == ["k": "v"])
            #expect(json["appId"] == "CC1AD845")
        }
    }

    @Test(arguments: ["CANCELLED", "BAD_PARAMETER", "NOT_FOUND", "SYSTEM_ERROR", "NOT_ALLOWED", "SOMETHING_NEW"])
    func everyLaunchErrorReasonIsReported(reason: String) async throws {
        try await ChannelFixture.with { fixture in
            fixture.emulator.faults.launch = .error(reason: reason, extendedError: "detail")
            let error = await caughtError(CastChannelError.self) {
                _ = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            }
            #expect(error?.code == .launchFailed)
            #expect(error?.reason == reason)
            #expect(error?.launchErrorReason == LaunchErrorReason(rawValue: reason))
            #expect(error?.message.contains("detail") == true)
            #expect(fixture.emulator.runningApplication == nil)
        }
    }

    @Test func anUnknownAppIsNotFound() async throws {
        try await ChannelFixture.with { fixture in
            let error = await caughtError(CastChannelError.self) {
                _ = try await fixture.receiver.launch(appID: "00000000")
            }
            #expect(error?.launchErrorReason == .notFound)
        }
    }

    @Test func launchStatusIsProgressNotTheAnswer() async throws {
        try await ChannelFixture.with { fixture in
            fixture.emulator.faults.launch = .requiresAuthorization
            let events = fixture.receiver.events()
            let launched = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            #expect(launched.appID == CastApplicationID.defaultMediaReceiver)
            let progress = await collect(events, count: 2) { event -> LaunchStatus? in
                if case .launchStatusChanged(let status) = event { return status }
                return nil
            }
            #expect(progress == [.userPendingAuthorization, .userAllowed])
        }
    }

    @Test func aLaunchWithoutReplyTimesOut() async throws {
        let receiver = ReceiverChannel(launchTimeout: .milliseconds(300))
        try await ChannelFixture.with(receiver: receiver) { fixture in
            fixture.emulator.faults.launch = .noReply
            let error = await caughtError(CastChannelError.self) {
                _ = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            }
            #expect(error?.code == .timedOut)
        }
    }

    @Test func delayedRepliesStillArrive() async throws {
        try await ChannelFixture.with { fixture in
            fixture.emulator.faults.receiverReplyDelay = .milliseconds(200)
            let status = try await fixture.receiver.requestStatus()
            #expect(status.volume.level == 1)
        }
    }

    @Test func stopIsBySessionIDOnly() async throws {
        try await ChannelFixture.with { fixture in
            let app = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            let wrong = await caughtError(CastChannelError.self) {
                try await fixture.receiver.stop(sessionID: "not-a-session")
            }
            #expect(wrong?.code == .invalidRequest)
            #expect(wrong?.reason == "INVALID_SESSION_ID")
            #expect(fixture.emulator.runningApplication != nil)

            let status = try await fixture.receiver.stop(sessionID: try #require(app.sessionID))
            #expect(status.runningApplication(appID: CastApplicationID.defaultMediaReceiver) == nil)
            #expect(fixture.emulator.runningApplication == nil)
        }
    }

    @Test func volumeAndMuteAreSetOneKeyPerMessage() async throws {
        try await ChannelFixture.with { fixture in
            let events = fixture.emulator.events()
            let lowered = try await fixture.receiver.setVolume(0.3)
            #expect(lowered.volume.level == 0.3)
            let muted = try await fixture.receiver.setMuted(true)
            #expect(muted.volume.isMuted == true)
            #expect(muted.volume.level == 0.3)
            let clamped = try await fixture.receiver.setVolume(7)
            #expect(clamped.volume.level == 1)
            #expect(fixture.emulator.volume == ReceiverVolume(level: 1, isMuted: true))

            let volumes = await collect(events, count: 3) { event -> JSONValue? in
                guard case .messageReceived(_, let message) = event, message.namespace == CastNamespace.receiver else {
                    return nil
                }
                return (try? JSONValue(parsing: message.text ?? ""))?["volume"]
            }
            #expect(volumes == [["level": 0.3], ["muted": true], ["level": 1.0]])
        }
    }

    @Test func availabilityUsesResponseType() async throws {
        try await ChannelFixture.with { fixture in
            let answers = try await fixture.receiver.availability(of: [
                CastApplicationID.defaultMediaReceiver, CastApplicationID.mirroring, "ABCDEF01",
            ])
            #expect(
                answers == [
                    CastApplicationID.defaultMediaReceiver: .available, CastApplicationID.mirroring: .available,
                    "ABCDEF01": .unavailable,
                ])
        }
    }

    @Test func availabilityWithoutAReplyIsUnknown() async throws {
        let receiver = ReceiverChannel(availabilityTimeout: .milliseconds(200))
        try await ChannelFixture.with(receiver: receiver) { fixture in
            fixture.emulator.faults.dropsReceiverReplies = true
            let answers = try await fixture.receiver.availability(of: [CastApplicationID.defaultMediaReceiver])
            #expect(answers == [CastApplicationID.defaultMediaReceiver: .unknown])
        }
    }

    @Test func requestIDsArePositiveIncreasingAndSharedPerConnection() async throws {
        try await ChannelFixture.with { fixture in
            let events = fixture.emulator.events()
            try await fixture.receiver.requestStatus()
            try await fixture.receiver.setVolume(0.5)
            _ = try await fixture.receiver.availability(of: ["CC1AD845"])
            try await fixture.receiver.requestStatus()
            let ids = await collect(events, count: 4) { event -> Int? in
                guard case .messageReceived(_, let message) = event, message.namespace == CastNamespace.receiver else {
                    return nil
                }
                return (try? JSONValue(parsing: message.text ?? ""))?["requestId"]?.intValue
            }
            #expect(ids.count == 4)
            #expect(ids.allSatisfy { $0 > 0 })
            #expect(ids == ids.sorted() && Set(ids).count == 4)
            #expect(fixture.connection.makeRequestID() > ids.last ?? 0)
        }
    }

    /// Seed 002 (`generateRequestID`, `deviceManager`): a channel makes ids
    /// for messages the app builds, from its connection's one sequence, and
    /// leads back to its connection and endpoint; detached, neither.
    @Test func aChannelLeadsBackToItsConnectionAndMakesRequestIDs() async throws {
        try await ChannelFixture.with { fixture in
            let receiver = fixture.receiver
            #expect(receiver.connection === fixture.connection)
            #expect(receiver.destinationID == "receiver-0")
            let first = try #require(receiver.generateRequestID())
            let second = try #require(receiver.generateRequestID())
            #expect(first > 0 && second > first)
            // The same sequence as the channel's own requests.
            let events = fixture.emulator.events()
            try await receiver.requestStatus()
            let sent = await collect(events, count: 1) { event -> Int? in
                guard case .messageReceived(_, let message) = event, message.namespace == CastNamespace.receiver else {
                    return nil
                }
                return (try? JSONValue(parsing: message.text ?? ""))?["requestId"]?.intValue
            }
            #expect((sent.first ?? 0) > second)
            receiver.detach()
            #expect(receiver.connection == nil)
            #expect(receiver.destinationID == nil)
            #expect(receiver.generateRequestID() == nil)
            receiver.attach(to: fixture.connection, destinationID: "receiver-0", logger: quietLogger)
        }
    }

    @Test func anUnknownCommandIsAnInvalidRequest() async throws {
        try await ChannelFixture.with { fixture in
            let events = fixture.emulator.events()
            try await fixture.receiver.sendTextMessage(#"{"type":"DANCE","requestId":99}"#)
            try await fixture.receiver.sendTextMessage("this is not json")
            // The emulator answers the first, drops the second, and the channel carries on.
            _ = await first(events) { event in
                if case .messageReceived(_, let message) = event { return message.text == "this is not json" }
                return false
            }
            let status = try await fixture.receiver.requestStatus()
            #expect(status.volume.level == 1)
        }
    }

    @Test func pendingRequestsFailAtOnceWhenTheConnectionDrops() async throws {
        try await ChannelFixture.with { fixture in
            fixture.emulator.faults.dropsReceiverReplies = true
            let observed = fixture.emulator.events()
            let pending = Task {
                await caughtError(CastChannelError.self) { try await fixture.receiver.requestStatus() }
            }
            let other = Task { await caughtError(CastChannelError.self) { try await fixture.receiver.setMuted(true) } }
            // Both requests reached the receiver, which will never answer them.
            let received = await collect(observed, count: 2) { event -> CastMessage? in
                guard case .messageReceived(_, let message) = event, message.namespace == CastNamespace.receiver else {
                    return nil
                }
                return message
            }
            #expect(received.count == 2)
            await fixture.emulator.closeConnections()
            #expect(await pending.value?.code == .disconnected)
            #expect(await other.value?.code == .disconnected)
            let afterwards = await caughtError(CastChannelError.self) { try await fixture.receiver.requestStatus() }
            #expect(afterwards?.code == .notConnected)
        }
    }

    @Test func twoSendersSeeEachOthersChanges() async throws {
        try await ChannelFixture.with { fixture in
            let (otherConnection, other) = try await fixture.secondSender()
            try await other.requestStatus()
            try await fixture.receiver.requestStatus()
            let seenByOther = other.events()
            let seenByFirst = fixture.receiver.events()

            try await fixture.receiver.setVolume(0.2)
            let volume = await first(seenByOther) { if case .volumeChanged = $0 { true } else { false } }
            #expect(
                volume
                    == .volumeChanged(
                        ReceiverVolume(level: 0.2, isMuted: false, controlType: .fixed, stepInterval: 0.04)))

            let app = try await other.launch(appID: CastApplicationID.defaultMediaReceiver)
            let launched = await first(seenByFirst) { event in
                if case .statusChanged(let status) = event {
                    return status.runningApplication(appID: CastApplicationID.defaultMediaReceiver) != nil
                }
                return false
            }
            guard case .statusChanged(let status)? = launched else {
                Issue.record("the first sender did not see the launch")
                return
            }
            #expect(
                status.runningApplication(appID: CastApplicationID.defaultMediaReceiver)?.sessionID == app.sessionID)
            #expect(fixture.receiver.status == status)
            other.detach()
            await otherConnection.close()
        }
    }

    /// A volume key pressed at the TV reaches the sender as a RECEIVER_STATUS
    /// broadcast (requestId 0), as the receiver's own status changes do.
    @Test func aVolumeChangedAtTheDeviceReachesTheSender() async throws {
        try await ChannelFixture.with { fixture in
            // A round trip first: CONNECT has no reply, and a broadcast reaches only a
            // sender whose CONNECT the receiver has handled.
            _ = try await fixture.receiver.requestStatus()
            let events = fixture.receiver.events()
            fixture.emulator.setVolume(ReceiverVolume(level: 0.25))
            let seen = await first(events) { event in
                if case .volumeChanged(let volume) = event { return volume.level == 0.25 }
                return false
            }
            guard case .volumeChanged(let volume)? = seen else {
                Issue.record("the sender did not hear the volume change")
                return
            }
            #expect(volume.isMuted == false, "the mute state is left as it was")
            #expect(fixture.emulator.volume.level == 0.25)
        }
    }

    @Test func theReceiverStoppingAnAppClosesItsTransportForEverySender() async throws {
        try await ChannelFixture.with { fixture in
            let app = try await fixture.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            let transportID = try #require(app.transportID)
            let virtualConnections = fixture.connection.virtualConnectionEvents()
            let observed = fixture.emulator.events()
            try await fixture.connection.openVirtualConnection(to: transportID)
            _ = await first(observed) { event in
                if case .virtualConnectionOpened(_, _, transportID, _) = event { return true }
                return false
            }
            #expect(fixture.emulator.stopApplication()?.sessionID == app.sessionID)
            let closed = await first(virtualConnections) { if case .closedByPeer = $0 { true } else { false } }
            #expect(closed == .closedByPeer(destinationID: transportID, reason: .closedBySelf))
        }
    }
}
