import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// The media server checked by clients we did not write: curl and Python's
/// http.client, over real TCP on the loopback.
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
        }
    }

    @Test func byteRangesAreAnsweredAsRFC9110Says() async throws {
        try await Self.withServedFile { _, url in
            let size = Self.content.count
            for (range, expected) in [
                ("bytes=0-99", 0...99), ("bytes=-500", (size - 500)...(size - 1)),
                ("bytes=99000-", 99_000...(size - 1)),
                ("bytes=99990-200000", 99_990...(size - 1)), ("bytes=0-", 0...(size - 1)),
            ] {
                let part = try await curl(url.absoluteString, ["-H", "Range: \(range)"])
                #expect(part.status == 206, "\(range)")
                #expect(part.headers["content-range"] == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)")
                #expect(part.body == Array(Self.content[expected]), "\(range)")
            }
            // Several ranges, or ones that do not parse, are ignored: the whole file.
            for range in ["bytes=0-1,5-6", "bytes=abc", "items=0-5", "bytes=50-10"] {
                let whole = try await curl(url.absoluteString, ["-H", "Range: \(range)"])
                #expect(whole.status == 200, "\(range)")
                #expect(whole.body.count == size)
            }
            // Past the end: 416 with the size.
            for range in ["bytes=100000-", "bytes=200000-300000", "bytes=-0"] {
                let beyond = try await curl(url.absoluteString, ["-H", "Range: \(range)"])
                #expect(beyond.status == 416, "\(range)")
                #expect(beyond.headers["content-range"] == "bytes */\(size)")
            }
            // A second independent client.
            let python = try await pythonGet(url, range: "bytes=1000-1999")
            #expect(python.status == 206)
            #expect(python.contentRange == "bytes 1000-1999/\(size)")
            #expect(python.length == 1_000)
            #expect(try await pythonGet(url, range: nil).length == size)
        }
    }

    @Test func nothingIsServedWithoutItsTokenAndAPreflightIsAnswered() async throws {
        try await Self.withServedFile { server, url in
            let base = server.baseURL.absoluteString
            let token = url.pathComponents[2]
            #expect(token.count == 32)
            for path in [
                "/media/\(String(repeating: "0", count: 32))/film.mp4", "/media/", "/", "/film.mp4", "/media/\(token)",
            ] {
                #expect(try await curl(base + path).status == 404, "\(path)")
            }
            // A receiver's CORS preflight for a ranged fetch.
            let preflight = try await curl(
                url.absoluteString,
                [
                    "-X", "OPTIONS", "-H", "Origin: https://www.gstatic.com", "-H",
                    "Access-Control-Request-Method: GET",
                    "-H", "Access-Control-Request-Headers: range",
                ])
            #expect([200, 204].contains(preflight.status))
            #expect(preflight.headers["access-control-allow-origin"] == "*")
            #expect(preflight.headers["access-control-allow-headers"]?.lowercased().contains("range") == true)
            #expect(preflight.headers["access-control-allow-methods"]?.contains("GET") == true)
            // Withdrawn: gone.
            server.withdraw(url)
            #expect(try await curl(url.absoluteString).status == 404)
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

    /// Past 4 GiB (a sparse file: no disk used), ranges land where they should.
    @Test func aFileOfMoreThanFourGibibytesIsServedAtItsFarEnd() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString).mkv")
        defer { try? FileManager.default.removeItem(at: file) }
        let size = 5 << 30
        let offset = (4 << 30) + 512 * 1_024 * 1_024 + 17
        let marker = Array("far, far away".utf8)
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(size))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(marker))
        try handle.close()
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try server.serve(file: file)
        let head = try await curl(url.absoluteString, ["-I"])
        #expect(head.headers["content-length"] == "\(size)")
        #expect(head.headers["content-type"] == "video/x-matroska")
        let part = try await curl(url.absoluteString, ["-H", "Range: bytes=\(offset)-\(offset + marker.count - 1)"])
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes \(offset)-\(offset + marker.count - 1)/\(size)")
        #expect(part.body == marker)
        let tail = try await curl(url.absoluteString, ["-H", "Range: bytes=-16"])
        #expect(tail.headers["content-range"] == "bytes \(size - 16)-\(size - 1)/\(size)")
        #expect(tail.body == [UInt8](repeating: 0, count: 16))
        await server.stop()
    }
}
