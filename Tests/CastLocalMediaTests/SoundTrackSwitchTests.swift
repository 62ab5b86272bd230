import CastChannels
import CastEmulator
import CastLocalMedia
import CastMedia
import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// A film with two sounds played through ``LocalMediaPlayback``: its LOAD
/// names each sound as an audio track of its HLS renditions, and switching
/// the active track while it plays makes the emulator — fetching as Shaka
/// Player does — fetch the other rendition from where it is: MPEG-TS
/// renditions beside a converted film, and fragmented MP4 renditions (each
/// after its initialization segment) beside a copied HEVC film.
@Suite(
    .serialized, .timeLimit(.minutes(5)), .takesTurn(.childProcesses),
    .enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
struct SoundTrackSwitchTests {
    @Test(arguments: [false, true])
    func switchingTheSoundTrackFetchesTheOtherRenditionFromThePosition(copiedHEVC: Bool) async throws {
        let hevc = TestFilm.hevc + ["-preset", "ultrafast", "-x265-params", "log-level=none:keyint=50:min-keyint=50"]
        let film =
            copiedHEVC
            ? try await TestFilm.twoSounds(seconds: 30, video: hevc, audio: TestFilm.aac)
            : try await TestFilm.twoSounds()
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        // A Chromecast Ultra plays HEVC: copied into fragmented MP4. The first Chromecast: converted, MPEG-TS.
        var configuration = LocalMediaPlayback.Configuration()
        configuration.deviceModel = copiedHEVC ? "Chromecast Ultra" : nil
        let segment = copiedHEVC ? "m4s" : "ts"
        let emulated = CastEmulatorConfiguration(mediaClock: .manual(), fetchesMedia: true)
        try await CastEmulator.withLinked(emulated, logger: StreamingFixture.logger) { emulator, link in
            let application = try await link.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            let media = RemoteMediaClient(requestTimeout: .seconds(30))
            try await link.join(application, attaching: [media])
            let loads = emulator.events()
            let playback = try await LocalMediaPlayback.start(
                [PlayItem(source: .file(film))], on: media, toward: "127.0.0.1", configuration: configuration)
            let load = try #require(await LocalMediaLoaderTests.nextLoad(loads))
            let tracks = load["media"]?["tracks"]?.arrayValue ?? []
            let sounds = tracks.filter { $0["type"]?.stringValue == "AUDIO" }
            #expect(sounds.compactMap { $0["language"]?.stringValue } == ["en", "fr"], "\(tracks)")
            #expect(sounds.compactMap { $0["name"]?.stringValue } == ["en", "Français"])
            #expect(load["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) == [1], "the English sound plays")
            let server = try #require(playback.server)
            #expect(Self.fetched(server, "rendition-a1.m3u8") && Self.fetched(server, "a1-0.\(segment)"))
            #expect(Self.fetched(server, "a1-init.mp4") == copiedHEVC)
            #expect(!Self.fetched(server, "rendition-a2.m3u8"), "only the default sound is fetched")

            // At 20 s (segment 3, 18–24 s), the French sound.
            _ = try await media.seek(MediaSeekOptions(interval: 20))
            _ = try await media.setActiveTrackIDs([2])
            let switched = try await waitUntil(within: .seconds(60)) {
                Self.fetched(server, "rendition-a2.m3u8") && Self.fetched(server, "a2-3.\(segment)")
            }
            #expect(switched, "\(server.recentRequests.map(\.path))")
            #expect(!Self.fetched(server, "a2-0.\(segment)"), "the French sound from the position, not from its start")
            #expect(Self.fetched(server, "a2-init.mp4") == copiedHEVC)
            await playback.close()
        }
    }

    /// Whether `server` answered a GET for `name` with 200.
    static func fetched(_ server: MediaServer, _ name: String) -> Bool {
        server.recentRequests.contains { $0.method == "GET" && $0.path.hasSuffix("/" + name) && $0.status == 200 }
    }
}
