import CastChannels
import CastEmulator
import CastLocalMedia
import CastMedia
import CastMediaServer
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The SDK's ``LocalMediaLoader`` against the emulator in memory: what the
/// LOAD and QUEUE_LOAD carry, and the typed errors, without ffmpeg or a server.
@Suite(.timeLimit(.minutes(1))) struct LocalMediaLoaderTests {
    /// The next LOAD or QUEUE_LOAD among `events` (one subscription per test: a new one
    /// would first replay the emulator's latest event, which may be the last LOAD).
    static func nextLoad(_ events: AsyncStream<EmulatorEvent>) async -> JSONValue? {
        await first(events, within: .seconds(10)) { event in
            guard case .messageReceived(_, let message) = event, message.namespace == CastNamespace.media,
                let json = try? JSONValue(parsing: message.text ?? "")
            else { return false }
            return ["LOAD", "QUEUE_LOAD"].contains(json["type"]?.stringValue ?? "")
        }.flatMap { event in
            guard case .messageReceived(_, let message) = event else { return nil }
            return try? JSONValue(parsing: message.text ?? "")
        }
    }

    /// Two URLs are one queue, each titled after its name, with the repeat mode asked for.
    @Test func severalItemsAreOneQueue() async throws {
        try await PlaybackWatchTests.withMedia { emulator, media in
            let lines = NIOLockedValueBox<[String]>([])
            var options = LocalMediaLoader.Options()
            options.repeatMode = .all
            let events = emulator.events()
            _ = try await LocalMediaLoader(local: nil) { line in lines.withLockedValue { $0.append(line) } }
                .load(
                    [
                        PlayItem(source: .url("https://media.example/one.mp4")),
                        PlayItem(source: .url("https://media.example/two.mp3"), title: "Second"),
                    ],
                    into: media, options: options)
            let queue = try #require(await Self.nextLoad(events))
            #expect(queue["type"] == "QUEUE_LOAD")
            #expect(queue["repeatMode"] == "REPEAT_ALL")
            let items = queue["items"]?.arrayValue ?? []
            #expect(items.map { $0["media"]?["metadata"]?["title"]?.stringValue } == ["one", "Second"])
            #expect(items.map { $0["media"]?["contentType"]?.stringValue } == ["video/mp4", "audio/mpeg"])
            #expect(lines.withLockedValue { $0 } == ["loading a queue of 2"])
        }
    }

    /// Subtitles given with an item are its first text track, in the
    /// language given, and shown; `off` shows none; a number past the
    /// tracks is a typed error, sent nothing.
    @Test func subtitlesAreTheFirstTrackShownUnlessTurnedOff() async throws {
        try await PlaybackWatchTests.withMedia { emulator, media in
            let item = PlayItem(
                source: .url("https://media.example/film.mp4"), subtitles: .url("https://media.example/film.vtt"))
            var options = LocalMediaLoader.Options()
            options.subtitlesLanguage = "fr"
            options.title = "Film"
            options.start = 30
            let loader = LocalMediaLoader(local: nil)
            let events = emulator.events()
            _ = try await loader.load([item], into: media, options: options)
            let load = try #require(await Self.nextLoad(events))
            #expect(load["type"] == "LOAD")
            #expect(load["currentTime"] == 30)
            #expect(load["media"]?["metadata"]?["title"] == "Film")
            let track = load["media"]?["tracks"]?.arrayValue?.first
            #expect(track?["trackId"] == 1)
            #expect(track?["language"] == "fr")
            #expect(track?["trackContentId"] == "https://media.example/film.vtt")
            #expect(load["activeTrackIds"] == [1])

            options.subtitles = .off
            _ = try await loader.load([item], into: media, options: options)
            let off = try #require(await Self.nextLoad(events))
            #expect(off["activeTrackIds"] == nil)

            options.subtitles = .number(3)
            await #expect {
                _ = try await loader.load([item], into: media, options: options)
            } throws: { error in
                (error as? LocalMediaError)?.code == .subtitleTrackNotFound
                    && "\(error)" == "there are 1 subtitle tracks"
            }
        }
    }

    /// A local file with nothing to serve it is refused by name before anything is sent.
    @Test func aLocalFileWithoutAServerIsATypedError() async throws {
        try await PlaybackWatchTests.withMedia { _, media in
            await #expect {
                _ = try await LocalMediaLoader(local: nil).load(
                    [PlayItem(source: .file(URL(fileURLWithPath: "/films/film.mkv")))], into: media)
            } throws: { error in
                (error as? LocalMediaError)?.code == .needsServer && "\(error)".contains("/films/film.mkv")
            }
        }
    }
}

/// A web page with a video, read by the real yt-dlp (its generic
/// extractor, offline: the page is served on 127.0.0.1 by our media
/// server) and loaded as the format the device plays, with the page's
/// title and thumbnail.
///
/// yt-dlp is a Python program that takes a core for a second or two as it
/// starts: each test takes the child processes' turn.
@Suite(
    .timeLimit(.minutes(5)), .takesTurn(.childProcesses),
    .enabled(if: MediaTools.installed().ytDlp != nil, "needs yt-dlp (make setup installs it with pip)"))
struct WebPageLoadTests {
    @Test func aPageWithAVideoIsLoadedAsItsVideo() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let film = try server.serve(Array("not really a film".utf8), named: "film.mp4", contentType: "video/mp4")
        let poster = try server.serve([0xFF, 0xD8, 0xFF], named: "poster.jpg", contentType: "image/jpeg")
        let html = """
            <!doctype html><html><head><title>A film on a page</title></head>
            <body><video controls src="\(film.absoluteString)" poster="\(poster.absoluteString)"></video></body></html>
            """
        let page = try server.serve(Array(html.utf8), named: "page", contentType: "text/html;charset=utf-8")
        try await PlaybackWatchTests.withMedia { emulator, media in
            let lines = NIOLockedValueBox<[String]>([])
            let loader = LocalMediaLoader(local: nil, tools: .installed(), device: .chromecast) { line in
                lines.withLockedValue { $0.append(line) }
            }
            let events = emulator.events()
            _ = try await loader.load([PlayItem(source: .url(page.absoluteString))], into: media)
            let load = try #require(await LocalMediaLoaderTests.nextLoad(events))
            #expect(load["media"]?["contentId"]?.stringValue == film.absoluteString)
            #expect(load["media"]?["contentType"] == "video/mp4")
            #expect(load["media"]?["metadata"]?["title"]?.stringValue?.hasPrefix("A film on a page") == true)
            #expect(
                load["media"]?["metadata"]?["images"]?.arrayValue?.first?["url"]?.stringValue == poster.absoluteString)
            #expect(lines.withLockedValue { $0 }.contains { $0.hasPrefix("playing the video on 127.0.0.1") })
        }
        await server.stop()
    }

    /// A page whose only video no Cast device plays as it is (MPEG-4 Part 2
    /// and MP3 in Matroska) is converted through this machine: the LOAD
    /// names our server's HLS playlist, which ffprobe reads as H.264 (ffmpeg
    /// fetched the page's video over HTTP, with the page as its Referer);
    /// without a server it is refused, naming what the page offers.
    @Test(.enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg"))
    func aPageWhoseVideoNoDevicePlaysIsConvertedThroughThisMachine() async throws {
        let film = try await TestFilm.make(
            "film.mkv", seconds: 3, video: TestFilm.mpeg4, audio: ["-c:a", "libmp3lame"])
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let site = try await MediaServer.start(toward: "127.0.0.1")
        let video = try site.serve(file: film, contentType: "video/x-matroska")
        let html = "<!doctype html><html><head><title>An old film</title></head><body><video src=\"\(video)\"></video>"
        let page = try site.serve(Array(html.utf8), named: "page", contentType: "text/html;charset=utf-8")
        let ours = try await MediaServer.start(toward: "127.0.0.1")
        try await PlaybackWatchTests.withMedia { emulator, media in
            let lines = NIOLockedValueBox<[String]>([])
            let local = LocalMedia(server: ours, tools: .installed(), device: .chromecast) { line in
                lines.withLockedValue { $0.append(line) }
            }
            let events = emulator.events()
            let loaded = try await LocalMediaLoader(local: local, report: local.report).load(
                [PlayItem(source: .url(page.absoluteString))], into: media)
            #expect(loaded.usesServer)
            let load = try #require(await LocalMediaLoaderTests.nextLoad(events))
            let served = try #require(load["media"]?["contentId"]?.stringValue)
            #expect(served.hasPrefix(ours.baseURL.absoluteString) && served.hasSuffix(".m3u8"), "\(served)")
            #expect(load["media"]?["contentType"] == "application/vnd.apple.mpegurl")
            #expect(lines.withLockedValue { $0 }.contains { $0.contains("through this machine") }, "\(lines)")
            let probed = try await CommandOutput.of([
                "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name", "-of",
                "csv=p=0", served,
            ])
            // One line per segment ffprobe opened (the playlist's two): each H.264.
            let codecs = Set(probed.stdout.split(separator: "\n").map(String.init))
            #expect(codecs == ["h264"], "\(probed.text)")
            #expect(site.recentRequests.contains { $0.path.hasSuffix("film.mkv") }, "ffmpeg fetched the page's video")

            await #expect {
                _ = try await LocalMediaLoader(local: nil, tools: .installed()).load(
                    [PlayItem(source: .url(page.absoluteString))], into: media)
            } throws: { error in
                (error as? LocalMediaError)?.code == .unplayable && "\(error)".contains("is one a Chromecast plays")
            }
        }
        await ours.stop()
        await site.stop()
    }

    /// A page yt-dlp finds no video on is a typed error naming the page.
    @Test func aPageWithoutAVideoIsATypedError() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let page = try server.serve(
            Array("<html><title>Nothing</title><p>words</p></html>".utf8), named: "words",
            contentType: "text/html")
        try await PlaybackWatchTests.withMedia { _, media in
            await #expect {
                _ = try await LocalMediaLoader(local: nil, tools: .installed()).load(
                    [PlayItem(source: .url(page.absoluteString))], into: media)
            } throws: { error in
                (error as? LocalMediaError)?.code == .unplayable && "\(error)".contains(page.absoluteString)
            }
        }
        await server.stop()
    }
}
