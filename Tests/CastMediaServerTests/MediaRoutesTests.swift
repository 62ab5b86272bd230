import Foundation
import Hummingbird
import Testing

@testable import CastMediaServer

/// What the media server's routes answer — byte ranges, tokens, CORS
/// preflight, HEAD — through its own router in memory (`InMemoryServer`):
/// a socket adds nothing to these. `MediaServerTests` checks the same
/// server with curl and Python over real TCP.
@Suite(.timeLimit(.minutes(1))) struct MediaRoutesTests {
    /// 100 000 bytes of a known pattern, in memory and in a file.
    static let content = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) }

    static func withFile(_ body: (URL) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString).mp4")
        try Data(Self.content).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await body(file)
    }

    @Test(arguments: ["file", "bytes"])
    func byteRangesAreAnsweredAsRFC9110Says(kind: String) async throws {
        try await Self.withFile { file in
            let server = InMemoryServer()
            let content: ServedItems.Content = kind == "file" ? .file(file.path) : .bytes(Self.content)
            let path = try server.serve(content, named: "film.mp4", contentType: "video/mp4")
            let size = Self.content.count
            for (range, expected) in [
                ("bytes=0-99", 0...99), ("bytes=-500", (size - 500)...(size - 1)),
                ("bytes=99000-", 99_000...(size - 1)),
                ("bytes=99990-200000", 99_990...(size - 1)), ("bytes=0-", 0...(size - 1)),
            ] {
                let part = try await server.fetch(path, headers: [.range: range])
                #expect(part.status == 206, "\(range)")
                #expect(part.headers["content-range"] == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)")
                #expect(part.body == Array(Self.content[expected]), "\(range)")
            }
            // Several ranges, or ones that do not parse, are ignored: the whole item.
            for range in ["bytes=0-1,5-6", "bytes=abc", "items=0-5", "bytes=50-10"] {
                let whole = try await server.fetch(path, headers: [.range: range])
                #expect(whole.status == 200, "\(range)")
                #expect(whole.body == Self.content, "\(range)")
            }
            // Past the end: 416 with the size.
            for range in ["bytes=100000-", "bytes=200000-300000", "bytes=-0"] {
                let beyond = try await server.fetch(path, headers: [.range: range])
                #expect(beyond.status == 416, "\(range)")
                #expect(beyond.headers["content-range"] == "bytes */\(size)")
                #expect(beyond.body.isEmpty)
            }
            // Each answer is remembered, with its range and status.
            let recent = server.items.recentRequests
            #expect(recent.count == 12)
            #expect(recent.first == MediaServerRequest(method: "GET", path: path, range: "bytes=0-99", status: 206))
            #expect(recent.last?.status == 416)
        }
    }

    @Test func headGivesTheLengthAndTypeWithoutTheBody() async throws {
        try await Self.withFile { file in
            let server = InMemoryServer()
            let path = try server.serve(.file(file.path), named: "film.mp4", contentType: "video/mp4")
            let head = try await server.fetch(path, method: .head)
            #expect(head.status == 200)
            #expect(head.headers["content-length"] == "100000")
            #expect(head.headers["content-type"] == "video/mp4")
            #expect(head.headers["accept-ranges"] == "bytes")
            #expect(head.headers["access-control-allow-origin"] == "*")
            #expect(head.body.isEmpty)
            let part = try await server.fetch(path, method: .head, headers: [.range: "bytes=10-19"])
            #expect(part.status == 206)
            #expect(part.headers["content-range"] == "bytes 10-19/100000")
            #expect(part.body.isEmpty)
        }
    }

    @Test func nothingIsServedWithoutItsTokenAndAPreflightIsAnswered() async throws {
        let server = InMemoryServer()
        let path = try server.serve(.bytes(Self.content), named: "film.mp4", contentType: "video/mp4")
        let token = path.split(separator: "/")[1]
        #expect(token.count == 32)
        #expect(token.allSatisfy { $0.isHexDigit })
        for other in [
            "/media/\(String(repeating: "0", count: 32))/film.mp4", "/media/", "/", "/film.mp4", "/media/\(token)",
            "/media/\(token)/film.mp4/more", "/media/../media/\(token)",
        ] {
            #expect(try await server.fetch(other).status == 404, "\(other)")
        }
        // A receiver's CORS preflight for a ranged fetch.
        let preflight = try await server.fetch(
            path, method: .options,
            headers: [
                .origin: "https://www.gstatic.com", .accessControlRequestMethod: "GET",
                .accessControlRequestHeaders: "range",
            ])
        #expect([200, 204].contains(preflight.status))
        #expect(preflight.headers["access-control-allow-origin"] == "*")
        #expect(preflight.headers["access-control-allow-headers"]?.lowercased().contains("range") == true)
        #expect(preflight.headers["access-control-allow-methods"]?.contains("GET") == true)
        // A fetch from a page gets the headers it may read.
        let fetched = try await server.fetch(path, headers: [.origin: "https://www.gstatic.com", .range: "bytes=0-0"])
        #expect(fetched.headers["access-control-expose-headers"]?.contains("Content-Range") == true)
        // Withdrawn: gone; once closed, nothing is served or added.
        server.items.remove(token: String(token))
        #expect(try await server.fetch(path).status == 404)
        let again = try server.serve(.bytes([1, 2, 3]), named: "again.bin", contentType: "application/octet-stream")
        server.items.close()
        #expect(try await server.fetch(again).status == 404)
        #expect(server.items.add(.bytes([1]), contentType: "application/octet-stream") == nil)
    }

    @Test func aFileThatGoesAwayIsNotFound() async throws {
        let server = InMemoryServer()
        var path = ""
        try await Self.withFile { file in
            path = try server.serve(.file(file.path), named: "film.mp4", contentType: "video/mp4")
            #expect(try await server.fetch(path).status == 200)
        }
        #expect(try await server.fetch(path).status == 404)
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
        let server = InMemoryServer()
        let path = try server.serve(.file(file.path), named: "large.mkv", contentType: "video/x-matroska")
        let head = try await server.fetch(path, method: .head)
        #expect(head.headers["content-length"] == "\(size)")
        let part = try await server.fetch(path, headers: [.range: "bytes=\(offset)-\(offset + marker.count - 1)"])
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes \(offset)-\(offset + marker.count - 1)/\(size)")
        #expect(part.body == marker)
        let tail = try await server.fetch(path, headers: [.range: "bytes=-16"])
        #expect(tail.headers["content-range"] == "bytes \(size - 16)-\(size - 1)/\(size)")
        #expect(tail.body == [UInt8](repeating: 0, count: 16))
    }
}
