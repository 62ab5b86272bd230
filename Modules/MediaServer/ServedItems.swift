import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// What a ``MediaServer`` serves, by token, and how it answers a request
/// for one: the whole item or a byte range of it, with the headers
/// receivers need.
final class ServedItems: Sendable {
    /// Where an item's bytes are.
    enum Content: Sendable {
        /// A file, opened at each request.
        case file(String)
        /// Bytes in memory.
        case bytes([UInt8])
    }

    private struct Item: Sendable {
        var content: Content
        var contentType: String
    }

    private struct State: Sendable {
        var items: [String: Item] = [:]
        var closed = false
        var requests: [MediaServerRequest] = []
    }

    /// Items served at most at once.
    static let limit = 10_000
    /// Requests remembered for ``MediaServer/recentRequests``.
    static let remembered = 64

    private let state = NIOLockedValueBox(State())
    private let files = FileIO()

    /// Adds an item under a new token of 128 random bits (hex); `nil` once
    /// closed or full.
    func add(_ content: Content, contentType: String) -> String? {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<2).map { _ in
            let value = generator.next() as UInt64
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        return self.state.withLockedValue { state -> String? in
            guard !state.closed, state.items.count < Self.limit else { return nil }
            state.items[token] = Item(content: content, contentType: contentType)
            return token
        }
    }

    func remove(token: String) {
        _ = self.state.withLockedValue { $0.items.removeValue(forKey: token) }
    }

    /// Serves nothing more.
    func close() {
        self.state.withLockedValue {
            $0.closed = true
            $0.items.removeAll()
        }
    }

    var recentRequests: [MediaServerRequest] { self.state.withLockedValue { $0.requests } }

    /// Answers a GET (or HEAD: Hummingbird drops the body) for `token`.
    func respond(to request: Request, token: String, context: some RequestContext) async throws -> Response {
        let range = request.headers[.range]
        let record = { (status: HTTPResponse.Status) in
            self.state.withLockedValue { state in
                if state.requests.count == Self.remembered { state.requests.removeFirst() }
                state.requests.append(
                    MediaServerRequest(
                        method: request.method.rawValue, path: request.uri.path, range: range, status: status.code))
            }
        }
        guard let item = self.state.withLockedValue({ $0.items[token] }), let size = Self.size(of: item.content) else {
            record(.notFound)
            throw HTTPError(.notFound)
        }
        var headers: HTTPFields = [
            .contentType: item.contentType, .acceptRanges: "bytes", .accessControlAllowOrigin: "*",
            .accessControlExposeHeaders: "Content-Length, Content-Range, Accept-Ranges",
        ]
        switch ByteRange(header: range, size: size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            record(.rangeNotSatisfiable)
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .part(let part):
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
            let body = try await self.body(item.content, range: part, context: context)
            record(.partialContent)
            return Response(status: .partialContent, headers: headers, body: body)
        case .whole:
            let body = try await self.body(item.content, range: nil, context: context)
            record(.ok)
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    /// The item's size now; `nil` when its file is gone.
    private static func size(of content: Content) -> Int? {
        switch content {
        case .bytes(let bytes):
            return bytes.count
        case .file(let path):
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            return Int(status.st_size)
        }
    }

    private func body(_ content: Content, range: ClosedRange<Int>?, context: some RequestContext) async throws
        -> ResponseBody
    {
        switch content {
        case .bytes(let bytes):
            let slice = range.map { bytes[$0] } ?? bytes[...]
            return ResponseBody(byteBuffer: ByteBuffer(bytes: slice))
        case .file(let path):
            guard let range else { return try await self.files.loadFile(path: path, context: context) }
            return try await self.files.loadFile(path: path, range: range, context: context)
        }
    }
}
