import CastCapture
import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import Testing

/// One application's sound (`DesktopAudioConfiguration.application`), on
/// both sound servers desktops run: two players at 440 and 880 Hz into the
/// same sink, only the first's pitch decoded by the emulated speaker; on
/// PipeWire, when the first closes its stream and opens another at 660 Hz,
/// the recording follows it. An application that plays nothing is named with those that do.
@Suite(.timeLimit(.minutes(3)), .serialized) struct ApplicationSoundTests {
    @Test(arguments: [SoundServer.Kind.pulseAudio, .pipeWire])
    func oneApplicationsSoundAloneIsSentAndFollowedToItsNextStream(server kind: SoundServer.Kind) async throws {
        try await SoundServer.withLinkedSpeaker(kind, logger: StreamingFixture.logger) {
            try await Self.sendOneApplication(from: $0, to: $1, through: $2)
        }
    }

    private static func sendOneApplication(
        from sound: SoundServer, to emulator: CastEmulator, through link: CastDeviceLink
    ) async throws {
        let tone = DecodedTone(from: emulator)
        let first = try sound.playTone(frequency: 440, amplitude: 0.5, seconds: 40, application: "Tone A")
        let other = try sound.playTone(frequency: 880, amplitude: 0.5, seconds: 40, application: "Tone B")
        // The streams exist once the server lists them; the capture looks for them when it opens.
        let listed = try await waitUntil(within: .seconds(20)) { Self.applications(on: sound).contains("Tone A") }
        #expect(listed, "the player's stream was not listed")
        let mirror = try await DesktopSoundMirror.start(
            on: link,
            configuration: DesktopSoundMirror.Configuration(
                sound: DesktopAudioConfiguration(server: sound.server, application: "tone a")))
        // Within 5 Hz of 440 (a mix with the other's 880 Hz reads near 880). Under a sanitizer,
        // whose build runs 5–15 times slower, a second with no chunk late is rare: there the
        // pitch only has to be the first application's rather than the other's (seen: 432 Hz).
        let tolerance = Sanitizers.areActive ? 40.0 : 5.0
        let heard = try await waitUntil(within: .seconds(30)) {
            tone.count >= 48_000 && abs(tone.frequency - 440) < tolerance
        }
        #expect(heard, "\(tone.count) samples decoded, last second at \(tone.frequency) Hz")
        // The application closes its stream and opens another: the recording follows (on PipeWire,
        // which most desktops run; the subscription is libpulse's on both, and a second takes a second).
        var next: DaemonProcess?
        if sound.kind == .pipeWire {
            await first.stop()
            next = try sound.playTone(frequency: 660, amplitude: 0.5, seconds: 40, application: "Tone A")
            let followed = try await waitUntil(within: .seconds(30)) { abs(tone.frequency - 660) < tolerance }
            #expect(followed, "last second at \(tone.frequency) Hz after the new stream")
        }
        let outcome = await mirror.stop()
        #expect(outcome.failure == nil, "\(String(describing: outcome.failure))")
        print("one application's sound (\(sound.kind)): \(tone.frequency) Hz at \(tone.level) dBFS")
        await next?.stop()
        await first.stop()
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
