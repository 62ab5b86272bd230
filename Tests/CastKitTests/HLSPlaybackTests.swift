import CastEmulator
import CastKit
import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// A film that needs converting, served as HLS by our media server and
/// played by the emulator, which fetches what it plays as a receiver's
/// HLS player does (Shaka Player's streaming engine: the playlist, the
/// segment at the position, and at a seek the segment the seek lands in).
@Suite(
    .serialized, .timeLimit(.minutes(3)), .takesTurn(.childProcesses),
    .enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
struct HLSPlaybackTests {
    @Test func aSeekDuringTheConversionFetchesTheSegmentItLandsIn() async throws {
        let film = try await TestFilm.make("film.mkv", seconds: 60, video: TestFilm.mpeg4, audio: TestFilm.ac3)
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let tools = MediaTools.installed()
        let media = try await tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecast)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try await server.serve(file: film, segmenting: plan, media: media, tools: tools)
        let configuration = CastEmulatorConfiguration(mediaClock: .manual(), fetchesMedia: true)
        // The LOAD is answered once the emulator has the first segment, which ffmpeg converts
        // first: 5 s was too short once under ThreadSanitizer (a deadline that only fails the test).
        let options = SessionFixture.options(requestTimeout: .seconds(30))
        try await SessionFixture.with(options, emulator: configuration) { fixture in
            let session = try await fixture.manager.startSession(on: fixture.device)
            let client = try #require(session.remoteMediaClient)
            let information = MediaInformation(
                contentID: url.absoluteString, contentType: "application/vnd.apple.mpegurl", duration: 60,
                hlsSegmentFormat: .ts, hlsVideoSegmentFormat: .mpeg2TS)
            // The LOAD is answered once the player has the playlist and the first segment.
            let loaded = try await client.load(MediaLoadRequestData(mediaInformation: information))
            #expect(loaded?.playerState != .idle)
            let first = server.recentRequests.map { ($0.method, ($0.path as NSString).lastPathComponent, $0.status) }
            #expect(first.contains { $0 == ("GET", "film.m3u8", 200) }, "\(first)")
            #expect(first.contains { $0 == ("GET", "0.ts", 200) }, "\(first)")

            // A seek to 80 %: the segment it lands in is asked for, and served.
            _ = try await client.seek(MediaSeekOptions(interval: 48))
            let fetched = try await waitUntil(within: .seconds(60)) {
                server.recentRequests.contains { $0.path.hasSuffix("/8.ts") && $0.status == 200 }
            }
            #expect(fetched, "\(server.recentRequests.map(\.path))")
            // Nothing between: the seek went straight to its segment.
            let between = (1...7).map { "/\($0).ts" }
            #expect(!server.recentRequests.contains { request in between.contains { request.path.hasSuffix($0) } })
        }
        await server.stop()
    }

    /// A copied HEVC film in fragmented MP4 segments: the player fetches
    /// the initialization segment before the first media segment.
    @Test func fragmentedMP4SegmentsAreFetchedAfterTheirInitializationSegment() async throws {
        let film = try await TestFilm.make("film.mkv", seconds: 20, video: TestFilm.hevc, audio: TestFilm.aac)
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let tools = MediaTools.installed()
        let media = try await tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecastUltra)
        #expect(plan.segmentsAreFragmentedMP4)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try await server.serve(file: film, segmenting: plan, media: media, tools: tools)
        let configuration = CastEmulatorConfiguration(mediaClock: .manual(), fetchesMedia: true)
        try await SessionFixture.with(SessionFixture.options(requestTimeout: .seconds(30)), emulator: configuration) {
            fixture in
            let session = try await fixture.manager.startSession(on: fixture.device)
            let client = try #require(session.remoteMediaClient)
            let information = MediaInformation(
                contentID: url.absoluteString, contentType: "application/vnd.apple.mpegurl", duration: 20,
                hlsSegmentFormat: .fmp4, hlsVideoSegmentFormat: .fmp4)
            let loaded = try await client.load(MediaLoadRequestData(mediaInformation: information))
            #expect(loaded?.playerState != .idle)
            let fetched = server.recentRequests.filter { $0.status == 200 }.map {
                ($0.path as NSString).lastPathComponent
            }
            #expect(fetched.starts(with: ["film.m3u8", "init.mp4", "0.m4s"]), "\(fetched)")
        }
        await server.stop()
    }
}
