import CastChannels
import CastEmulator
import CastLocalMedia
import CastMedia
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The SDK's ``LocalMediaLoader`` against the emulator in memory: what the
/// LOAD and QUEUE_LOAD carry, and the typed errors, without ffmpeg or a server.
@Suite(.timeLimit(.minutes(1))) struct LocalMediaLoaderTests {
    /// The media requests the emulator received while `body` ran, as JSON.
    static func requests(_ emulator: CastEmulator, during body: () async throws -> Void) async throws -> [JSONValue] {
        let events = emulator.events()
        try await body()
        return await collect(events, count: 1, within: .seconds(5)) { event -> JSONValue? in
            guard case .messageReceived(_, let message) = event, message.namespace == CastNamespace.media,
                let json = try? JSONValue(parsing: message.text ?? ""),
                ["LOAD", "QUEUE_LOAD"].contains(json["type"]?.stringValue ?? "")
            else { return nil }
            return json
        }
    }

    /// Two URLs are one queue, each titled after its name, with the repeat mode asked for.
    @Test func severalItemsAreOneQueue() async throws {
        try await PlaybackWatchTests.withMedia { emulator, media in
            let lines = NIOLockedValueBox<[String]>([])
            var options = LocalMediaLoader.Options()
            options.repeatMode = .all
            let sent = try await Self.requests(emulator) {
                _ = try await LocalMediaLoader(local: nil) { line in lines.withLockedValue { $0.append(line) } }
                    .load(
                        [
                            PlayItem(source: .url("https://media.example/one.mp4")),
                            PlayItem(source: .url("https://media.example/two.mp3"), title: "Second"),
                        ],
                        into: media, options: options)
            }
            let queue = try #require(sent.first)
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
            let shown = try await Self.requests(emulator) {
                _ = try await loader.load([item], into: media, options: options)
            }
            let load = try #require(shown.first)
            #expect(load["type"] == "LOAD")
            #expect(load["currentTime"] == 30)
            #expect(load["media"]?["metadata"]?["title"] == "Film")
            let track = load["media"]?["tracks"]?.arrayValue?.first
            #expect(track?["trackId"] == 1)
            #expect(track?["language"] == "fr")
            #expect(track?["trackContentId"] == "https://media.example/film.vtt")
            #expect(load["activeTrackIds"] == [1])

            options.subtitles = .off
            let off = try await Self.requests(emulator) {
                _ = try await loader.load([item], into: media, options: options)
            }
            #expect(off.first?["activeTrackIds"] == nil)

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
