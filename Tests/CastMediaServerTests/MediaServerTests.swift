import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// The media server checked by clients we did not write, curl and Python's
/// http.client, over real TCP on the loopback; what its routes answer is
/// in `MediaRoutesTests`, in memory.
@Suite(.timeLimit(.minutes(3))) struct MediaServerTests {
    /// 100 000 bytes of a known pattern.
    static let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }

    static func withServedFile(
        named name: String = "film.mp4", _ body: (MediaServer, URL) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(Self.content).write(to: file)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        do {
            try await body(server, try server.serve(file: file))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aFileIsServedWholeWithItsTypeAndTheHeadersReceiversNeed() async throws {
        try await Self.withServedFile(named: "my film (2024).mp4") { server, url in
            #expect(server.host == "127.0.0.1")
            #expect(url.absoluteString.hasPrefix("http://127.0.0.1:\(server.port)/media/"))
            #expect(url.lastPathComponent == "my film (2024).mp4")
            let whole = try await curl(url.absoluteString)
            #expect(whole.status == 200)
            #expect(whole.body == Self.content)
            #expect(whole.headers["content-type"] == "video/mp4")
            #expect(whole.headers["content-length"] == "100000")
            #expect(whole.headers["accept-ranges"] == "bytes")
            #expect(whole.headers["access-control-allow-origin"] == "*")
            let head = try await curl(url.absoluteString, ["-I"])
            #expect(head.status == 200)
            #expect(head.headers["content-length"] == "100000")
            #expect(server.recentRequests.map(\.method) == ["GET", "HEAD"])
            // A range, by curl and by a second independent client (MediaRoutesTests
            // has every kind of range, in memory).
            let part = try await curl(url.absoluteString, ["-H", "Range: bytes=1000-1999"])
            #expect(part.status == 206)
            #expect(part.headers["content-range"] == "bytes 1000-1999/\(Self.content.count)")
            #expect(part.body == Array(Self.content[1000...1999]))
            let python = try await pythonGet(url, range: "bytes=1000-1999")
            #expect(python.status == 206)
            #expect(python.contentRange == "bytes 1000-1999/\(Self.content.count)")
            #expect(python.length == 1_000)
            #expect(try await pythonGet(url, range: nil).length == Self.content.count)
        }
    }

    @Test func bytesInMemoryAreServedTooAndAStoppedServerRefuses() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let vtt = Array("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello\n".utf8)
        let url = try server.serve(vtt, named: "film.vtt", contentType: "text/vtt")
        let fetched = try await curl(url.absoluteString, ["-H", "Range: bytes=0-5"])
        #expect(fetched.status == 206)
        #expect(fetched.body == Array("WEBVTT".utf8))
        #expect(fetched.headers["content-type"] == "text/vtt")
        await server.stop()
        #expect(throws: MediaServerError.self) { try server.serve(vtt, named: "again.vtt", contentType: "text/vtt") }
        await #expect(throws: (any Error).self) { try await curl(url.absoluteString, ["--fail"]) }
    }

    @Test func aFileThatIsNotThereIsATypedError() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let missing = #expect(throws: MediaServerError.self) {
            try server.serve(file: URL(fileURLWithPath: "/nonexistent/film.mp4"))
        }
        #expect(missing?.code == .unreadableFile)
        #expect(throws: MediaServerError.self) { try server.serve(file: FileManager.default.temporaryDirectory) }
        await server.stop()
        let nowhere = await #expect(throws: MediaServerError.self) {
            try await MediaServer.start(toward: "not-an-address")
        }
        #expect(nowhere?.code == .noRoute)
    }
}
