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
@Suite(.timeLimit(.minutes(2))) struct AudioReconnectionTests {
    /// The speaker goes away for good: one attempt at once, one after the
    /// policy's 2 s, then the session ends with `connectionLost` and the
    /// failure is told.
    @Test func aSpeakerThatDoesNotComeBackEndsTheSessionAfterThePolicysAttempts() async throws {
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
