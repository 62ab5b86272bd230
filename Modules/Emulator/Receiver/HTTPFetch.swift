import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request from the emulator's event loop, as a receiver's
/// media element makes it: the status and headers, the body read and
/// dropped (only its size is kept).
///
/// The socket is opened on the emulator's own event loop rather than by
/// URLSession, whose worker threads are created on demand by whichever
/// thread asks first: in a test process where some threads have joined a
/// network namespace, such a worker can land in that namespace, where
/// 127.0.0.1 refuses every connection (seen: a LOAD of a URL our media
/// server was serving failed with 104, the HEAD refused in 0 ms). The
/// emulator's loop is where its own sockets live, in its namespace.
enum HTTPFetch {
    /// What the server answered.
    struct Response: Sendable {
        /// The status code.
        var status: Int
        /// The response headers.
        var headers: HTTPHeaders
        /// How many body bytes arrived.
        var bodyLength: Int
    }

    /// Why a fetch failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `method` for `url` with `headers`, following up to
    /// `redirects` redirections as a browser's media element does, and waits
    /// at most `timeout` for each whole response; `http` and `https` (the
    /// server's certificate verified).
    static func request(
        _ method: HTTPMethod, _ url: URL, headers: [(String, String)] = [], timeout: Duration,
        redirects: Int = 5, on loop: any EventLoop
    ) async throws -> Response {
        var target = url
        for _ in 0...redirects {
            let response = try await Self.once(method, target, headers: headers, timeout: timeout, on: loop)
            guard [301, 302, 303, 307, 308].contains(response.status),
                let location = response.headers.first(name: "Location"),
                let next = URL(string: location, relativeTo: target)?.absoluteURL
            else { return response }
            target = next
        }
        throw Failure(description: "more than \(redirects) redirections from \(url)")
    }

    private static func once(
        _ method: HTTPMethod, _ url: URL, headers: [(String, String)], timeout: Duration, on loop: any EventLoop
    ) async throws -> Response {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host,
            !host.isEmpty
        else { throw Failure(description: "not an http(s) URL: \(url)") }
        let secure = scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        let tls = try secure ? NIOSSLContext(configuration: .makeClientConfiguration()) : nil
        let promise = loop.makePromise(of: Response.self)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: host)) }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(ResponseCollector(promise: promise))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            promise.fail(error)
            throw error
        }
        let deadline = loop.scheduleTask(in: TimeAmount(timeout)) {
            promise.fail(Failure(description: "no whole response from \(url) within \(timeout)"))
        }
        promise.futureResult.whenComplete { _ in
            deadline.cancel()
            channel.close(promise: nil)
        }
        // The path as the URL spells it, percent-escapes kept (a file name with a space).
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        var path = components?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        if let query = components?.percentEncodedQuery { path += "?\(query)" }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        return try await promise.futureResult.get()
    }
}

/// Collects one response and completes `promise` with it, or with why the connection ended first.
private final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<HTTPFetch.Response>
    private var response: HTTPFetch.Response?

    init(promise: EventLoopPromise<HTTPFetch.Response>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.response = HTTPFetch.Response(status: Int(head.status.code), headers: head.headers, bodyLength: 0)
        case .body(let bytes):
            self.response?.bodyLength += bytes.readableBytes
        case .end:
            if let response = self.response {
                self.promise.succeed(response)
            } else {
                self.promise.fail(HTTPFetch.Failure(description: "a response ended before its head"))
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.promise.fail(HTTPFetch.Failure(description: "the server closed the connection mid-response"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.promise.fail(error)
        context.close(promise: nil)
    }
}
