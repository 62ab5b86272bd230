import CastEmulator
import CastKit
import CastRemoteDisplay
import CastTestSupport
import Testing

/// Sound to a speaker inside a `CastSession`: the session manager's recovery
/// brings the same audio stream back after the speaker drops off the network.
@Suite(.timeLimit(.minutes(10))) struct AudioSessionRecoveryTests {
    /// The SDK's way: a session of the audio mirroring app, its Remote Display channel added to
    /// it. The connection drops; the manager reconnects, re-attaches the channel, and the same
    /// Cast Streaming session goes on — same app session, no LAUNCH, the tone still decoded.
    @Test func aSpeakerThatDropsOffTheNetworkResumesTheSameStreamWithoutARelaunch() async throws {
        // Real-time streaming takes its turn with the others (RealTimeTurns), so
        // their sender-thread checks never see this session's threads.
        try await RealTimeTurns.take(.thisProcess) { try await Self.dropAndResume() }
    }

    private static func dropAndResume() async throws {
        try await SessionFixture.with(
            SessionFixture.options(applicationID: CastApplicationID.audioMirroring),
            emulator: CastEmulatorConfiguration(profile: .nestSpeaker)
        ) { fixture in
            let tone = DecodedTone(from: fixture.emulator)
            let cast = try await fixture.manager.startSession(on: fixture.device)
            let running = try #require(fixture.emulator.runningApplication)
            #expect(running.application.appID == CastApplicationID.audioMirroring)
            let channel = try #require(RemoteDisplayChannel(logger: quietLogger))
            cast.add(channel)
            #expect(channel.isConnected)
            let session = try await channel.beginSession(configuration: .audioOnly())
            try await streamTone(seconds: 0.5, to: session)

            let launches = fixture.emulator.events()
            await fixture.emulator.closeConnections()
            #expect(await fixture.log.wait(for: "resumed") != nil)
            let back = await first(session.stateUpdates(), within: .seconds(5)) { $0 == .active }
            #expect(back == .active)
            let before = fixture.emulator.streamingReport?.audio?.framesDecoded ?? 0
            try await streamTone(seconds: 1, to: session)
            var decoded = before
            for _ in 0..<100 where decoded < before + 80 {
                try await Task.sleep(for: .milliseconds(50))
                decoded = fixture.emulator.streamingReport?.audio?.framesDecoded ?? 0
            }
            #expect(decoded >= before + 80, "\(decoded) frames decoded, \(before) before the drop")
            #expect(abs(tone.frequency - 1_000) < 5, "\(tone.frequency) Hz")
            #expect(fixture.emulator.runningApplication?.sessionID == running.sessionID)
            // No relaunch: of a LAUNCH and a question asked now, the receiver got the question first.
            let marker = "0000AA00"
            _ = try await cast.receiver.availability(of: [marker])
            let launchOrMarker = await first(launches) { event in
                guard case .messageReceived(_, let message) = event, let text = message.text else { return false }
                return text.contains(#""LAUNCH""#) || text.contains(marker)
            }
            let text: String? = if case .messageReceived(_, let message)? = launchOrMarker { message.text } else { nil }
            #expect(text?.contains(marker) == true, "\(text ?? "nothing") came first")
            await fixture.manager.endSession()
        }
    }
}
