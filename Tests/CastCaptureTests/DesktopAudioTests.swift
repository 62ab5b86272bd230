import CastCapture
import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import Testing

/// The desktop's sound from a real PulseAudio daemon's null-sink monitor,
/// streamed beside a real X11 screen capture and decoded by the emulator.
@Suite(.timeLimit(.minutes(10)), .serialized) struct DesktopAudioTests {
    @Test func aToneOnTheDesktopArrivesAtItsPitchAndLevelInSyncWithThePicture() async throws {
        try await SoundServer.with { sound in try await Self.streamTone(from: sound) }
    }

    private static func streamTone(from sound: SoundServer) async throws {
        try await VirtualDisplay.with(width: 640, height: 360) { display in
            try await StreamingFixture.with { fixture in
                let tone = DecodedTone(from: fixture.emulator)
                // Longer than the test can take on a loaded machine (it is
                // stopped below): a tone that ended early would be silence.
                let playing = try sound.playTone(frequency: 1_000, amplitude: 0.5, seconds: 40)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)]))
                let capture = try ScreenCapture(configuration: ScreenCaptureConfiguration(display: display.name))
                let audio = try DesktopAudioCapture(configuration: DesktopAudioConfiguration(server: sound.server))
                try capture.start(streamingTo: session)
                try audio.start(streamingTo: session)
                // Two seconds of sound decoded (the monitor takes a moment to start delivering).
                let decodedEnough = try await waitUntil(within: .seconds(30)) {
                    tone.count >= 48_000 * 2
                }
                audio.stop()
                capture.stop()
                await playing.stop()
                let audioEnd = await audio.finished()
                let captureEnd = await capture.finished()
                #expect(audioEnd == nil, "the sound capture failed: \(String(describing: audioEnd))")
                #expect(captureEnd == nil, "the screen capture failed: \(String(describing: captureEnd))")
                let report = try #require(fixture.emulator.streamingReport)
                #expect(decodedEnough, "\(tone.count) samples decoded in 30 s")
                let frequency = tone.frequency
                let level = tone.level
                let offset = try #require(report.audioVideoOffset)
                print(
                    "desktop sound: \(audio.statistics), \(frequency) Hz at \(level) dBFS, "
                        + "A/V offset \(offset), audio \(String(describing: report.audio))")
                #expect(abs(frequency - 1_000) < 5, "\(frequency) Hz")
                // A 0.5 sine is −9.0 dBFS RMS; Opus at 128 kbit/s keeps it within a fraction of a dB.
                #expect(abs(level - -9.03) < 1, "\(level) dBFS")
                #expect(abs(offset) < .milliseconds(50), "A/V offset \(offset)")
            }
        }
    }

    /// The desktop's sound alone to a Nest speaker through the SDK's
    /// ``DesktopSoundMirror``: an audio-only session of the audio mirroring
    /// app, fed from a real null sink's monitor. Mid-way the speaker drops
    /// every connection (as one falling off Wi-Fi): the mirror connects
    /// again, the same stream plays on with nothing launched again, and
    /// stopping stops the app.
    @Test func theDesktopsSoundReachesASpeakerThroughADroppedConnection() async throws {
        try await SoundServer.withLinkedSpeaker(logger: StreamingFixture.logger) {
            try await Self.mirrorSound(from: $0, to: $1, through: $2)
        }
    }

    private static func mirrorSound(
        from sound: SoundServer, to emulator: CastEmulator, through link: CastDeviceLink
    ) async throws {
        let tone = DecodedTone(from: emulator)
        let playing = try sound.playTone(frequency: 1_000, amplitude: 0.5, seconds: 40)
        let mirror = try await DesktopSoundMirror.start(
            on: link,
            configuration: DesktopSoundMirror.Configuration(sound: DesktopAudioConfiguration(server: sound.server)))
        let events = mirror.audio.events()
        let firstSecond = try await waitUntil(within: .seconds(30)) { tone.count >= 48_000 }
        let session = emulator.runningApplication?.sessionID
        await emulator.closeConnections()
        let reconnected = await first(events, within: .seconds(30)) { event in
            if case .reconnected = event { true } else { false }
        }
        let before = tone.count
        let playsOn = try await waitUntil(within: .seconds(30)) { tone.count >= before + 48_000 }
        #expect(await mirror.endReason == nil)
        // Nothing was launched again: a launch makes a new app session.
        #expect(session != nil && emulator.runningApplication?.sessionID == session)
        let outcome = await mirror.stop()
        await playing.stop()
        let report = emulator.streamingReport?.audio
        print(
            "desktop sound to a speaker: \(tone.frequency) Hz at \(tone.level) dBFS, latency p50 "
                + "\(String(describing: report?.latencyP50)) p99 \(String(describing: report?.latencyP99))")
        #expect(firstSecond && playsOn, "\(tone.count) samples decoded")
        #expect(reconnected != nil, "no reconnection")
        #expect(outcome.failure == nil, "the sound capture failed: \(String(describing: outcome.failure))")
        #expect(mirror.audio.applicationID == CastApplicationID.audioMirroring)
        #expect(emulator.streamingReport?.video == nil)
        #expect(abs(tone.frequency - 1_000) < 5, "\(tone.frequency) Hz")
        #expect(abs(tone.level - -9.03) < 1, "\(tone.level) dBFS")
        #expect(emulator.runningApplication == nil, "stopping the mirror stops the app")
    }

    @Test func noSoundServerIsATypedError() {
        #expect {
            try DesktopAudioCapture(configuration: DesktopAudioConfiguration(server: "unix:/nonexistent/native"))
        } throws: { ($0 as? CaptureError)?.code == .audioUnavailable }
        #expect {
            try DesktopAudioCapture(configuration: DesktopAudioConfiguration(chunkDuration: .seconds(1)))
        } throws: { ($0 as? CaptureError)?.code == .invalidConfiguration }
    }
}
