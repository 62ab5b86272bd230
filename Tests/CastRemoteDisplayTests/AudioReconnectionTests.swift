import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Synchronization
import Testing

/// An ``AudioCastSession`` started through a link keeps its control
/// connection: the policy's attempts at virtual time, and what it says when
/// the device does not come back. (The connection coming back, and the same
/// stream playing on, is `DesktopAudioTests`' speaker test.)
@Suite(.timeLimit(.minutes(5))) struct AudioReconnectionTests {
    /// The speaker goes away for good: one attempt at once, one after the
    /// policy's 2 s, then the session ends with `connectionLost` and the
    /// failure is told.
    @Test func aSpeakerThatDoesNotComeBackEndsTheSessionAfterThePolicysAttempts() async throws {
        // In the process's turn: the session's network thread would be counted by a test that counts them.
        try await RealTimeTurns.take(.thisProcess) { try await Self.speakerThatDoesNotComeBack() }
    }

    private static func speakerThatDoesNotComeBack() async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .nestSpeaker), logger: StreamingFixture.logger)
        try await emulator.start()
        // In memory while it is there; afterwards over TCP, where its stopped server refuses.
        let reachable = Mutex(true)
        let factory = CastConnectionFactory { _, _, configuration, logger in
            reachable.withLock { $0 } ? emulator.inMemoryConnection(configuration: configuration, logger: logger) : nil
        }
        let link = try await CastDeviceLink.connect(
            to: emulator.loopbackDevice, configuration: CastConnectionConfiguration(deviceAuthentication: .off),
            factory: factory, logger: StreamingFixture.logger)
        let clock = ManualClock()
        // Attempt 1 at once (attempt n waits initialDelay × 2ⁿ⁻¹), attempt 2 after 2 s, no third.
        let policy = ReconnectPolicy(initialDelay: .seconds(1), jitter: 0, maximumAttempts: 2)
        let audio = try await AudioCastSession.start(through: link, reconnection: policy, clock: clock)
        let events = audio.events()
        reachable.withLock { $0 = false }
        await emulator.stop()
        // The first attempt fails at once; the second waits for the policy's 2 s.
        #expect(await clock.sleeper(until: ManualClock.Instant(offset: .seconds(2))))
        #expect(audio.session.state == .interrupted)
        clock.advance(by: .seconds(2) - .nanoseconds(1))
        #expect(audio.session.state == .interrupted)
        clock.advance(by: .nanoseconds(1))
        let failed = await first(events, within: .seconds(30)) { event in
            if case .reconnectionFailed = event { true } else { false }
        }
        guard case .reconnectionFailed(let error)? = failed else {
            Issue.record("no reconnectionFailed event")
            return
        }
        #expect(error.summary.contains("127.0.0.1"), "\(error.summary)")
        #expect(audio.session.state == .ended(.connectionLost))
        await audio.end()
        await link.close()
    }

    /// A speaker group's members are followed on the device's platform, and
    /// again on the new connection after a loss: a member's change after
    /// the reconnection still arrives.
    @Test func aGroupsMembersAreFollowedAcrossAReconnection() async throws {
        // In the process's turn: the session's network thread would be counted by a test that counts them.
        try await RealTimeTurns.take(.thisProcess) { try await Self.followTheGroupAcrossAReconnection() }
    }

    private static func followTheGroupAcrossAReconnection() async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: .speakerGroup), logger: StreamingFixture.logger)
        try await emulator.start()
        let kitchen = MultizoneDevice(
            id: "kitchen-id", name: "Kitchen", capabilities: 196_612, volume: ReceiverVolume(level: 0.5, isMuted: false)
        )
        emulator.addGroupMember(kitchen)
        let link = try await CastDeviceLink.connect(
            to: emulator.loopbackDevice, configuration: CastConnectionConfiguration(deviceAuthentication: .off),
            factory: [emulator].inMemoryConnectionFactory, logger: StreamingFixture.logger)
        let audio = try await AudioCastSession.start(through: link, clock: ManualClock())
        #expect(try await audio.group.requestStatus().devices.map(\.description) == ["Kitchen (volume 50%)"])
        let events = audio.events()
        let changes = audio.group.events()
        // The first attempt goes at once, without waiting on the clock.
        await emulator.closeConnections()
        let reconnected = await first(events, within: .seconds(30)) { event in
            if case .reconnected = event { true } else { false }
        }
        #expect(reconnected != nil, "no reconnection")
        // Asked on the new connection: the channel is attached there, and the emulator has the
        // sender's CONNECT to receiver-0, so a broadcast now reaches it.
        #expect(try await audio.group.requestStatus().devices.count == 1)
        var louder = kitchen
        louder.volume = ReceiverVolume(level: 0.8, isMuted: false)
        emulator.addGroupMember(louder)
        let update = await first(changes, within: .seconds(30)) { event in
            if case .deviceUpdated = event { true } else { false }
        }
        guard case .deviceUpdated(let member)? = update else {
            Issue.record("no member update after the reconnection")
            return
        }
        #expect(member.description == "Kitchen (volume 80%)")
        #expect(member.json["volume"]?["level"] == 0.8)
        await audio.end()
        await link.close()
        await emulator.stop()
    }

    /// A device that says it has no sound output is refused before anything is launched.
    @Test func aDeviceWithoutSoundOutputIsRefusedBeforeTheLaunch() async throws {
        let emulator = try CastEmulator(logger: StreamingFixture.logger)
        try await emulator.start()
        var screenOnly = emulator.loopbackDevice
        (screenOnly.capabilities, screenOnly.source) = ([.videoOut], .multicastDNS)
        let link = try await CastDeviceLink.connect(
            to: screenOnly, configuration: CastConnectionConfiguration(deviceAuthentication: .off),
            factory: [emulator].inMemoryConnectionFactory, logger: StreamingFixture.logger)
        await #expect {
            try await AudioCastSession.start(through: link)
        } throws: { error in
            (error as? CastRemoteDisplayError)?.code == .noSoundOutput
        }
        #expect(emulator.runningApplication == nil)
        await link.close()
        await emulator.stop()
    }
}
