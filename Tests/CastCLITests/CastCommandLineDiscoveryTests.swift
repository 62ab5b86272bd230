import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing

/// `cast discover` and `--device NAME` with real mDNS between two network
/// namespaces: the emulator and its responder in one, `cast` in the other.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"))
struct CastCommandLineDiscoveryTests {
    @Test func discoverListsTheEmulatorAndDeviceFindsItByName() async throws {
        try await RealTimeTurns.take(.childProcesses) { try await Self.discoverAndFind() }
    }

    private static func discoverAndFind() async throws {
        try await NamespacePair.with { pair in
            try await Self.withAdvertisedEmulator(
                pair, CastEmulatorConfiguration(host: pair.ipv4(pair.b), name: "Living Room TV")
            ) { emulator in
                // The device's setup server, on its own namespace's standard ports.
                try await emulator.startSetupServer(
                    securePort: CastDevice.setupSecurePort, port: CastDevice.setupPort)
                let inA = ["netns", "exec", pair.a, CastCommandLineTests.executable("cast")]
                let discover = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    inA + [
                        "discover", "--interface", "vA", "--ipv4", "--json", "--count", "1", "--timeout", "8",
                        "--details",
                    ])
                #expect(discover.status == 0, "\(discover.stderr)")
                let lines = try discover.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
                let event = try #require(lines.first)
                #expect(event["event"] == "found")
                #expect(event["name"] == "Living Room TV")
                #expect(event["id"] == .string(emulator.advertisement.id))
                #expect(event["port"] == .integer(emulator.port))
                let icon = "http://\(pair.ipv4(pair.b)):8008/setup/icon.png"
                #expect(event["icon"] == .string(icon))
                // --details: what the device's setup server says, and the icon an app can load (curl).
                let details = try #require(lines.first { $0["event"] == "details" }, "\(discover.stdout)")
                #expect(details["manufacturer"] == "Google Inc.")
                #expect(details["modelName"] == "Chromecast")
                #expect(details["firmware"] == .string(CastEmulator.firmwareVersion))
                let fetched = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    [
                        "netns", "exec", pair.a, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{content_type}",
                        icon,
                    ])
                #expect(fetched.stdout == "200 image/png")

                let byName = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    inA + ["status", "--device", "living room tv", "--interface", "vA", "--ipv4", "--json"])
                #expect(byName.status == 0, "\(byName.stderr)")
                #expect(try JSONValue(parsing: byName.stdout)["volume"]?["level"] == 1)
                #expect(byName.stderr.contains("found \"Living Room TV\""))

                let byID = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    inA + ["launch", "CC1AD845", "--device", emulator.advertisement.id, "--interface", "vA", "--ipv4"])
                #expect(byID.status == 0, "\(byID.stderr)")

                let nobody = try await CastCommandLineTests.run(
                    "/usr/sbin/ip", inA + ["status", "--device", "Nobody", "--interface", "vA", "--timeout", "1"])
                #expect(nobody.status == 3)
                #expect(nobody.stderr.contains("no device named or with id \"Nobody\""))
            }
        }
    }

    /// Runs `body` with an emulator configured by `configuration` at the
    /// pair's B side, advertised by its responder on vB; stops both after.
    private static func withAdvertisedEmulator(
        _ pair: NamespacePair, _ configuration: CastEmulatorConfiguration,
        _ body: (CastEmulator) async throws -> Void
    ) async throws {
        let loops = try pair.eventLoopGroup(in: pair.b)
        let emulator = try CastEmulator(
            configuration: configuration, eventLoopGroup: loops, logger: CastCommandLineTests.quiet)
        try await emulator.start()
        let responder = emulator.makeResponder(interfaces: .named(["vB"]), addressFamilies: .ipv4)
        let result: Result<Void, any Error>
        do {
            try await retrying { try await responder.start() }
            try await body(emulator)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await responder.stop()
        await emulator.stop()
        try await loops.shutdownGracefully()
        try result.get()
    }

    /// The PlayFilm sample (issue 50): an app of under 40 lines finds a TV
    /// by name, casts a film with its own English subtitles (served by
    /// CastMediaServer, the text track extracted as WebVTT by CastLocalMedia)
    /// and seeks; the emulator receives the LOAD with the text track shown
    /// and the SEEK.
    /// The whole machine's turn: the sample and ffprobe/ffmpeg run as other
    /// processes, and real-time tests beside them (5-15x slower when sanitized) starved.
    @Test(.enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
    func thePlayFilmSampleCastsAFilmWithItsSubtitlesAndSeeks() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let subtitles = folder.appendingPathComponent("en.srt")
        try Data("1\n00:00:00,500 --> 00:00:01,500\nHello\n\n".utf8).write(to: subtitles)
        let film = folder.appendingPathComponent("Our Film.mp4")
        let made = try await CommandOutput.of(
            [
                try #require(TestFilm.ffmpeg), "-v", "error", "-nostdin", "-f", "lavfi", "-i",
                "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-i",
                subtitles.path, "-map", "0:v", "-map", "1:a", "-map", "2", "-t", "3",
            ] + TestFilm.h264 + TestFilm.aac + [
                "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", "-disposition:s:0", "default", "-y", film.path,
            ])
        try #require(made.status == 0, "\(made.stderr)")
        try await RealTimeTurns.take(.wholeMachine) {
            try await NamespacePair.with { pair in
                try await Self.withAdvertisedEmulator(
                    pair, CastEmulatorConfiguration(host: pair.ipv4(pair.b), name: "Den TV")
                ) { emulator in
                    let events = emulator.events()
                    let run = try await CastCommandLineTests.run(
                        "/usr/sbin/ip",
                        [
                            "netns", "exec", pair.a, CastCommandLineTests.executable("sample-play-film"), "Den TV",
                            film.path, "vA", "1.5",
                        ])
                    #expect(run.status == 0, "\(run.stderr)")
                    #expect(run.stdout.contains("with 1 subtitle track(s)"), "\(run.stdout)")
                    #expect(run.stdout.contains("at 1.5 s"), "\(run.stdout)")
                    let load = await first(events, within: .seconds(5)) { event in
                        guard case .messageReceived(_, let message) = event else { return false }
                        return message.namespace == CastNamespace.media && message.text?.contains("\"LOAD\"") == true
                    }
                    guard case .messageReceived(_, let message)? = load, let text = message.text else {
                        Issue.record("the emulator got no LOAD")
                        return
                    }
                    let request = try JSONValue(parsing: text)
                    let tracks = request["media"]?["tracks"]?.arrayValue ?? []
                    #expect(tracks.count == 1 && tracks.first?["type"] == "TEXT", "\(text)")
                    #expect(tracks.first?["language"] == "en")
                    #expect(request["activeTrackIds"] == .array([.integer(1)]))
                    let seek = await first(events, within: .seconds(5)) { event in
                        guard case .messageReceived(_, let message) = event else { return false }
                        return message.text?.contains("\"SEEK\"") == true
                    }
                    #expect(seek != nil, "the emulator got no SEEK")
                }
            }
        }
    }

    /// A speaker and a speaker group (its own endpoint and port), each found by name (their
    /// TXT records' `ca` have audio_out, no video_out): `cast audio` plays to it, `cast
    /// screen` is refused before anything is launched or offered.
    @Test(arguments: [
        (ReceiverProfile.nestSpeaker, "Kitchen speaker"), (ReceiverProfile.speakerGroup, "Downstairs speakers"),
    ])
    func aSpeakerOrGroupFoundByNameTakesSoundAndIsNeverOfferedVideo(profile: ReceiverProfile, name: String)
        async throws
    {
        try await RealTimeTurns.take(.childProcesses) { try await Self.speakerByName(profile: profile, name: name) }
    }

    private static func speakerByName(profile: ReceiverProfile, name: String) async throws {
        let wav = try CastAudioCommandTests.temporaryFile("tone.wav", CastAudioCommandTests.toneWAV(seconds: 1))
        try await NamespacePair.with { pair in
            try await Self.withAdvertisedEmulator(
                pair,
                CastEmulatorConfiguration(host: pair.ipv4(pair.b), name: name, profile: profile)
            ) { emulator in
                let inA = ["netns", "exec", pair.a, CastCommandLineTests.executable("cast")]
                let events = emulator.events()
                let screen = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    inA + [
                        "screen", "--test-pattern", "--device", name, "--interface", "vA", "--ipv4", "--seconds", "1",
                    ])
                #expect(screen.status == 5, "\(screen.stderr)")
                #expect(screen.stderr.contains("no screen") && screen.stderr.contains("cast audio"), "\(screen.stderr)")
                let launched = await first(events, within: .milliseconds(300)) { event in
                    guard case .messageReceived(_, let message) = event else { return false }
                    return message.namespace == CastNamespace.webrtc || message.text?.contains("LAUNCH") == true
                }
                #expect(launched == nil, "\(String(describing: launched))")

                let audio = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    inA + ["audio", wav.path, "--device", name.lowercased(), "--interface", "vA", "--ipv4", "--json"])
                #expect(audio.status == 0, "\(audio.stderr)")
                #expect(try audio.json()["applicationId"] == "85CDB22F")
                #expect((try audio.json()["audioFramesSent"]?.intValue ?? 0) >= 50)
            }
        }
    }
}
