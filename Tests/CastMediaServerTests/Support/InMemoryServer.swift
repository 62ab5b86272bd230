import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import CastMediaServer

/// The media server's own router and items, driven in memory: a request
/// goes to the router's responder as Hummingbird's server would hand it
/// over, and the response's body is written into memory, with no socket —
/// what HummingbirdTesting's `.router` framework does. (HummingbirdTesting
/// itself would bring AsyncHTTPClient and NIOHTTP2 into every test and
/// ThreadSanitizer build, for nothing these tests use.) One test in
/// `MediaServerTests` keeps curl over a real socket.
struct InMemoryServer {
    let items = ServedItems()
    private let responder: RouterResponder<BasicRequestContext>

    init() {
        self.responder = MediaRoutes.router(serving: self.items).buildResponder()
    }

    /// Serves `content`; the path to ask for it, `/media/TOKEN/NAME`.
    func serve(_ content: ServedItems.Content, named name: String, contentType: String) throws -> String {
        let token = try #require(self.items.add(content, contentType: contentType))
        return "/media/\(token)/\(name)"
    }

    /// What a request for `path` gets: errors the routes throw become their
    /// responses, as the server makes them.
    func fetch(
        _ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]
    ) async throws -> Fetched {
        let request = Request(
            head: HTTPRequest(
                method: method, scheme: "http", authority: "127.0.0.1", path: path, headerFields: headers),
            body: RequestBody(buffer: ByteBuffer()))
        let context = BasicRequestContext(
            source: ApplicationRequestContextSource(
                channel: NIOAsyncTestingChannel(), logger: Logger(label: "InMemoryServer")))
        let response: Response
        do {
            response = try await self.responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        let body = CollectedBody()
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.canonicalName] = field.value }
        try await response.body.write(body)
        return Fetched(status: response.status.code, headers: fields, body: body.bytes.withLockedValue { $0 })
    }
}

/// A response body written into memory.
private struct CollectedBody: ResponseBodyWriter {
    let bytes = NIOLockedValueBox<[UInt8]>([])

    func write(_ buffer: ByteBuffer) async throws {
        self.bytes.withLockedValue { $0 += buffer.readableBytesView }
    }

    func finish(_ headers: HTTPFields?) async throws {}
}
