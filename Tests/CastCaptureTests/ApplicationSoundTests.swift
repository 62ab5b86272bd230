import CastCapture
import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import Testing

/// One application's sound (`DesktopAudioConfiguration.application`), on
/// both sound servers desktops run: two players into the same sink, only
/// the first application's pitch (440 Hz) decoded by the emulated speaker,
/// not the other's (880 Hz); when the application opens a second stream
/// (660 Hz, as a browser's second tab does) both its streams are heard
/// together; when it closes the first, the second plays on alone. An
/// application that plays nothing is named with those that do.
@Suite(.timeLimit(.minutes(3)), .serialized) struct ApplicationSoundTests {
    @Test(arguments: [SoundServer.Kind.pulseAudio, .pipeWire])
    func oneApplicationsStreamsAloneAreMixedAndSent(server kind: SoundServer.Kind) async throws {
        try await SoundServer.withLinkedSpeaker(kind, logger: StreamingFixture.logger) {
            try await Self.sendOneApplication(from: $0, to: $1, through: $2)
        }
    }

    private static func sendOneApplication(
        from sound: SoundServer, to emulator: CastEmulator, through link: CastDeviceLink
    ) async throws {
        let tones = HeardTones(emulator)
        let first = try sound.playTone(frequency: 440, amplitude: 0.4, seconds: 40, application: "Tone A")
        let other = try sound.playTone(frequency: 880, amplitude: 0.4, seconds: 40, application: "Tone B")
        // The streams exist once the server lists them; the capture looks for them when it opens.
        let listed = try await waitUntil(within: .seconds(20)) { Self.applications(on: sound).contains("Tone A") }
        #expect(listed, "the player's stream was not listed")
        let mirror = try await DesktopSoundMirror.start(
            on: link,
            configuration: DesktopSoundMirror.Configuration(
                sound: DesktopAudioConfiguration(server: sound.server, application: "tone a")))
        // A whole second of the first application's tone alone, at its level (within 1.5 dB
        // of 0.4). Under a sanitizer, whose build runs 5–15 times slower, a second with no
        // chunk late is rare: there the tone only has to be the loudest by far.
        let loud = Sanitizers.areActive ? 0.15 : 0.34
        let frequencies = [440.0, 660, 880]
        let alone = try await waitUntil(within: .seconds(30)) {
            tones.amplitude(at: 440) > loud && tones.amplitude(at: 880) < 0.02
        }
        #expect(alone, "the first stream alone: \(tones.describe(frequencies))")
        // A second stream of the same application: both are heard, the other application still not.
        let second = try sound.playTone(frequency: 660, amplitude: 0.4, seconds: 40, application: "Tone A")
        let mixed = try await waitUntil(within: .seconds(30)) {
            tones.amplitude(at: 440) > loud && tones.amplitude(at: 660) > loud && tones.amplitude(at: 880) < 0.02
        }
        #expect(mixed, "both streams: \(tones.describe(frequencies))")
        print("one application's two streams (\(sound.kind)): \(tones.describe(frequencies))")
        // The first stream ends: the second plays on, alone.
        await first.stop()
        let followed = try await waitUntil(within: .seconds(30)) {
            tones.amplitude(at: 660) > loud && tones.amplitude(at: 440) < 0.02
        }
        #expect(followed, "after the first stream ended: \(tones.describe(frequencies))")
        let outcome = await mirror.stop()
        #expect(outcome.failure == nil, "\(String(describing: outcome.failure))")
        print("one application's streams (\(sound.kind)): \(tones.describe(frequencies))")
        await second.stop()
        await other.stop()
    }

    @Test func anApplicationThatPlaysNothingIsNamedWithThoseThatDo() async throws {
        try await SoundServer.with { sound in
            let other = try sound.playTone(frequency: 880, amplitude: 0.5, seconds: 40, application: "Tone B")
            defer { Task { await other.stop() } }
            #expect(try await waitUntil(within: .seconds(20)) { Self.applications(on: sound).contains("Tone B") })
            #expect {
                try DesktopAudioCapture(
                    configuration: DesktopAudioConfiguration(server: sound.server, application: "Tone A"))
            } throws: { error in
                let error = error as? CaptureError
                return error?.code == .audioUnavailable
                    && error?.message == "no application named Tone A plays sound now; playing: Tone B"
            }
        }
    }

    /// `app:NAME`, as `--audio-source` takes it, is one application; anything else a source.
    @Test func appColonNameNamesAnApplication() {
        let application = DesktopAudioConfiguration(server: nil, source: "app:Firefox")
        #expect(application.application == "Firefox" && application.device == nil)
        let source = DesktopAudioConfiguration(server: "unix:/run/pulse", source: "alsa_output.monitor")
        #expect(
            source.application == nil && source.device == "alsa_output.monitor" && source.server == "unix:/run/pulse")
        #expect(DesktopAudioConfiguration(server: nil, source: "app:").device == "app:")
    }

    /// The `application.name` of every stream playing on `sound`'s server, as `pactl` lists them.
    private static func applications(on sound: SoundServer) -> [String] {
        let listing = try? CommandOutput.waiting(for: ["pactl", "--server=\(sound.server)", "list", "sink-inputs"])
        return (listing?.stdout ?? "").split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "application.name = \"") else { return nil }
            return String(line[range.upperBound...].dropLast())
        }
    }
}
