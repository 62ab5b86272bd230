import CastTestSupport
import Foundation
import Testing

@testable import CastSpeakers

/// The sinks, against a real PulseAudio daemon, checked with `pactl` (the
/// server's own client, not ours): made and described, their volume and
/// mute set both ways, an app playing into one seen, removed.
@Suite(.timeLimit(.minutes(2))) struct SoundServerConnectionTests {
    /// `pactl ARGUMENTS` against `sound`'s server; its standard output.
    static func pactl(_ sound: SoundServer, _ arguments: String...) async throws -> String {
        let output = try await CommandOutput.of(["pactl", "--server=\(sound.server)"] + arguments)
        #expect(output.status == 0, "pactl \(arguments): \(output.stderr)")
        return output.stdout
    }

    @Test func aSinkIsMadeDescribedAndRemovedAsPactlSeesIt() async throws {
        try await SoundServer.with { sound in
            let connection = try SoundServerConnection(server: sound.server)
            defer { connection.close() }
            let module = try connection.loadNullSink(
                name: "cast.kitchen-1", description: "Kitchen speaker", owner: SinkOwner.current)
            let listed = try await Self.pactl(sound, "list", "sinks")
            #expect(listed.contains("Name: cast.kitchen-1"))
            #expect(listed.contains("Description: Kitchen speaker"))
            let sink = try #require(try connection.sinks().first { $0.name == "cast.kitchen-1" })
            #expect(sink.description == "Kitchen speaker")
            #expect(!sink.isPlaying)
            #expect(sink.monitorName == "cast.kitchen-1.monitor")

            try connection.unloadModule(module)
            let after = try await Self.pactl(sound, "list", "sinks", "short")
            #expect(!after.contains("cast.kitchen-1"))
            #expect(after.contains("cast_test"))
        }
    }

    @Test func quotesInADeviceNameCannotBreakTheModuleArgument() async throws {
        try await SoundServer.with { sound in
            let connection = try SoundServerConnection(server: sound.server)
            defer { connection.close() }
            _ = try connection.loadNullSink(name: "cast.odd", description: "Bob's \"Den\" \\ speaker", owner: nil)
            let listed = try await Self.pactl(sound, "list", "sinks")
            #expect(listed.contains("Description: Bobs Den  speaker"))
        }
    }

    @Test(arguments: SoundServer.Kind.allCases)
    func volumeAndMuteGoBothWaysAndPlayingIsSeen(_ kind: SoundServer.Kind) async throws {
        try await SoundServer.with(kind) { sound in
            let connection = try SoundServerConnection(server: sound.server)
            defer { connection.close() }
            _ = try connection.loadNullSink(name: "cast.den", description: "Den", owner: nil)

            try connection.setVolume(0.4, ofSink: "cast.den")
            let set = try await Self.pactl(sound, "get-sink-volume", "cast.den")
            #expect(set.contains("40%"), "\(set)")
            try connection.setMuted(true, sink: "cast.den")
            #expect(try await Self.pactl(sound, "get-sink-mute", "cast.den").contains("yes"))

            _ = try await Self.pactl(sound, "set-sink-volume", "cast.den", "70%")
            _ = try await Self.pactl(sound, "set-sink-mute", "cast.den", "0")
            let seen = await first(connection.events, within: .seconds(10)) { event in
                guard case .sinkChanged(let sink) = event, sink.name == "cast.den" else { return false }
                return abs(sink.volume - 0.7) < 0.01 && !sink.isMuted
            }
            #expect(seen != nil, "the server's change of volume and mute was not reported")

            let tone = try sound.playTone(frequency: 440, amplitude: 0.2, seconds: 30, into: "cast.den")
            let playing = await first(connection.events, within: .seconds(10)) { event in
                guard case .sinkChanged(let sink) = event else { return false }
                return sink.name == "cast.den" && sink.isPlaying
            }
            await tone.stop()
            #expect(playing != nil, "an app playing into the sink was not reported")
        }
    }

    /// The end of playback is seen while the sink's monitor is recorded, as
    /// it is while a stream runs: PipeWire's pulse server keeps such a sink
    /// RUNNING and sends no sink event when the last input goes.
    @Test(arguments: SoundServer.Kind.allCases)
    func theEndOfPlaybackIsSeenWhileTheMonitorIsRecorded(_ kind: SoundServer.Kind) async throws {
        try await SoundServer.with(kind) { sound in
            let connection = try SoundServerConnection(server: sound.server)
            defer { connection.close() }
            _ = try connection.loadNullSink(name: "cast.den", description: "Den", owner: nil)
            let tone = try sound.playTone(frequency: 440, amplitude: 0.2, seconds: 30, into: "cast.den")
            let playing = await first(connection.events, within: .seconds(10)) { event in
                guard case .sinkChanged(let sink) = event else { return false }
                return sink.name == "cast.den" && sink.isPlaying
            }
            #expect(playing != nil, "an app playing into the sink was not reported")
            #expect(try connection.sinks().first { $0.name == "cast.den" }?.isPlaying == true)
            let recording = try DaemonProcess(
                "parec", ["--server=\(sound.server)", "--device=cast.den.monitor", "--format=float32le"])
            let recorded = await DaemonProcess.wait(for: .seconds(10)) {
                (try? Self.sourceOutputCount(sound)) ?? 0 > 0
            }
            #expect(recorded, "parec did not start recording the monitor")
            await tone.stop()
            let silent = await first(connection.events, within: .seconds(10)) { event in
                guard case .sinkChanged(let sink) = event else { return false }
                return sink.name == "cast.den" && !sink.isPlaying
            }
            #expect(silent != nil, "the end of playback into the sink was not reported (\(kind))")
            #expect(try connection.sinks().first { $0.name == "cast.den" }?.isPlaying == false)
            await recording.stop()
        }
    }

    /// How many recording streams the server has now.
    static func sourceOutputCount(_ sound: SoundServer) throws -> Int {
        let output = try CommandOutput.waiting(for: [
            "pactl", "--server=\(sound.server)", "list", "source-outputs", "short",
        ])
        return output.stdout.split(separator: "\n").count
    }

    @Test func noServerIsATypedError() async throws {
        let error = #expect(throws: SpeakersError.self) {
            _ = try SoundServerConnection(server: "unix:/nonexistent/cast-test/native")
        }
        #expect(error?.code == .soundServerUnavailable)
    }
}
