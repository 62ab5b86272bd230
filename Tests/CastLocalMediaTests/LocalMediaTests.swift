import CastLocalMedia
import CastMediaServer
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Local media as an SDK type: what a user names resolved into items, and a
/// file served as a device can play it, refused with a typed error naming
/// why, each decision reported — without the `cast` tool.
@Suite(.timeLimit(.minutes(1))) struct LocalMediaTests {
    /// A folder of files with these names (each a few bytes), removed by the caller.
    static func folder(_ names: [String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("local-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names { try Data("media".utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func aFolderIsItsMediaInNameOrderWithTheSubtitlesBesideThem() throws {
        let folder = try Self.folder(["Episode 10.mp4", "episode 2.mkv", "Episode 1.mp4", "Episode 1.srt", "notes.txt"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let items = try PlayItem.resolve([folder.path, "https://media.example/extra.mp4"])
        #expect(items.map(\.displayTitle) == ["Episode 1", "episode 2", "Episode 10", "extra"])
        #expect(items.first?.subtitles == .file(folder.appendingPathComponent("Episode 1.srt")))
        #expect(items[1].subtitles == nil)
        #expect(items.last?.source == .url("https://media.example/extra.mp4"))
    }

    @Test func aPlaylistKeepsItsOrderAndTitles() throws {
        let folder = try Self.folder(["a.mp4", "b.mp4"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let playlist = folder.appendingPathComponent("list.m3u")
        try Data("#EXTM3U\n#EXTINF:12,Second\nb.mp4\n#EXTINF:5,Stream\nhttps://media.example/s.mp4\na.mp4\n".utf8)
            .write(to: playlist)
        let items = try PlayItem.resolve([playlist.path])
        #expect(items.map(\.displayTitle) == ["Second", "Stream", "a"])
    }

    @Test func nothingThereOrNoMediaIsATypedError() throws {
        let folder = try Self.folder(["readme.txt"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = #expect(throws: LocalMediaError.self) { try PlayItem.resolve(["/nonexistent/film.mkv"]) }
        #expect(missing?.code == .notFound)
        #expect(missing?.message == "/nonexistent/film.mkv: no such file or folder")
        let empty = #expect(throws: LocalMediaError.self) { try PlayItem.resolve([folder.path]) }
        #expect(empty?.code == .noMedia)
    }

    @Test func choicesReadAsAUserTypesThem() {
        #expect(SubtitleChoice("off") == .off)
        #expect(SubtitleChoice("2") == .number(2))
        #expect(SubtitleChoice("pt-BR") == .language("pt-BR"))
        #expect(SubtitleChoice("https://media.example/film.vtt") == .source("https://media.example/film.vtt"))
        #expect(AudioChoice("fre") == .language("fre"))
        #expect(MediaLanguage.matches("fre", "fr") && MediaLanguage.matches("fr-CA", "fra"))
        #expect(!MediaLanguage.matches(nil, "fr"))
    }

    /// Without ffprobe the extension decides: an MP4 is served as it is, a
    /// container Cast devices do not play is refused naming what to install,
    /// an unknown extension is refused naming why.
    @Test func withoutTheToolsTheExtensionDecides() async throws {
        let folder = try Self.folder(["film.mp4", "film.avi", "film.xyz"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let reports = NIOLockedValueBox([String]())
        let media = LocalMedia(
            server: server, tools: MediaTools(ffprobe: nil, ffmpeg: nil), device: .chromecast,
            report: { line in reports.withLockedValue { $0.append(line) } })
        let served = try await media.serve(folder.appendingPathComponent("film.mp4"), contentType: nil)
        #expect(served.contentType == "video/mp4")
        #expect(!served.isConverted)
        #expect(served.url.absoluteString.hasPrefix(server.baseURL.absoluteString))
        let avi = await #expect(throws: LocalMediaError.self) {
            try await media.serve(folder.appendingPathComponent("film.avi"), contentType: nil)
        }
        #expect(avi?.code == .unplayable)
        #expect(avi?.message.contains("install ffmpeg to convert it") == true, "\(String(describing: avi))")
        let unknown = await #expect(throws: LocalMediaError.self) {
            try await media.serve(folder.appendingPathComponent("film.xyz"), contentType: nil)
        }
        #expect(unknown?.code == .unknownType)
        let burning = await #expect(throws: LocalMediaError.self) {
            try await media.serve(folder.appendingPathComponent("film.mp4"), contentType: nil, burningSubtitles: 1)
        }
        #expect(burning?.code == .toolsMissing)
        // A content type given is served as it is, unchecked.
        let given = try await media.serve(folder.appendingPathComponent("film.xyz"), contentType: "video/webm")
        #expect(given.contentType == "video/webm")
        #expect(reports.withLockedValue { $0 }.isEmpty)
        await server.stop()
    }
}
