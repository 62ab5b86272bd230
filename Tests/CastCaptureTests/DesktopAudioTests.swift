import CastCapture
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The desktop's sound from a real PulseAudio daemon's null-sink monitor,
/// streamed beside a real X11 screen capture and decoded by the emulator.
@Suite(.serialized) struct DesktopAudioTests {
    @Test func aToneOnTheDesktopArrivesAtItsPitchAndLevelInSyncWithThePicture() async throws {
        try await SoundServer.with { sound in try await Self.streamTone(from: sound) }
    }

    private static func streamTone(from sound: SoundServer) async throws {
        try await VirtualDisplay.with(width: 640, height: 360) { display in
            let samples = NIOLockedValueBox([Float]())
            try await StreamingFixture.with { fixture in
                fixture.emulator.streaming.observer.sound = { _, decoded, channels in
                    samples.withLockedValue { samples in
                        guard samples.count < 48_000 * 10 else { return }
                        for index in stride(from: 0, to: decoded.count, by: channels) { samples.append(decoded[index]) }
                    }
                }
                // Longer than the test can take on a loaded machine (it is
                // stopped below): a tone that ended early would be silence.
                let tone = try sound.playTone(frequency: 1_000, amplitude: 0.5, seconds: 40)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)]))
                let capture = try ScreenCapture(configuration: ScreenCaptureConfiguration(display: display.name))
                let audio = try DesktopAudioCapture(configuration: DesktopAudioConfiguration(server: sound.server))
                try capture.start(streamingTo: session)
                try audio.start(streamingTo: session)
                // Two seconds of sound decoded (the monitor takes a moment to start delivering).
                let decodedEnough = try await waitUntil(within: .seconds(30)) {
                    samples.withLockedValue { $0.count } >= 48_000 * 2
                }
                audio.stop()
                capture.stop()
                await tone.stop()
                let audioEnd = await audio.finished()
                let captureEnd = await capture.finished()
                #expect(audioEnd == nil, "the sound capture failed: \(String(describing: audioEnd))")
                #expect(captureEnd == nil, "the screen capture failed: \(String(describing: captureEnd))")
                let report = try #require(fixture.emulator.streamingReport)
                // The last second of what the receiver decoded.
                let decoded = samples.withLockedValue { $0 }
                #expect(decodedEnough, "\(decoded.count) samples decoded in 30 s")
                let last = Array(decoded.suffix(48_000))
                var crossings = 0
                for index in 1..<last.count where (last[index - 1] < 0) != (last[index] < 0) { crossings += 1 }
                let frequency = Double(crossings) / 2
                let rms = (last.reduce(0) { $0 + Double($1) * Double($1) } / Double(last.count)).squareRoot()
                let level = 20 * log10(max(rms, 1e-9))
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

    @Test func noSoundServerIsATypedError() {
        #expect {
            try DesktopAudioCapture(configuration: DesktopAudioConfiguration(server: "unix:/nonexistent/native"))
        } throws: { ($0 as? CaptureError)?.code == .audioUnavailable }
        #expect {
            try DesktopAudioCapture(configuration: DesktopAudioConfiguration(chunkDuration: .seconds(1)))
        } throws: { ($0 as? CaptureError)?.code == .invalidConfiguration }
    }
}
