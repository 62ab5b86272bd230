public import Foundation
public import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 request on a SwiftNIO event loop: the status, the headers
/// and, up to a limit, the body. The SDK's image cache fetches artwork with
/// it and the receiver emulator fetches media as a receiver does.
///
/// The socket is opened on the event loop given, not by URLSession, whose
/// worker threads are created on demand by whichever thread asks first: in
/// a process where a thread has joined another network namespace (the
/// SDK's tests do, to test discovery), such a worker can land in that
/// namespace, where 127.0.0.1 refuses every connection; seen as a LOAD our
/// media server was serving failing with 104, its HEAD refused in 0 ms.
///
/// ```swift
/// let response = try await HTTPFetch.request(
///     "GET", URL(string: "http://192.168.1.5:8000/poster.jpg")!, timeout: .seconds(10),
///     keepingBodyUpTo: 1 << 20, on: MultiThreadedEventLoopGroup.singleton.next())
/// ```
public enum HTTPFetch {
    /// What the server answered.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The response headers, as they came.
        public var headers: [(name: String, value: String)]
        /// How many body bytes arrived.
        public var bodyLength: Int
        /// The body, when the request kept it (and it fit).
        public var body: Data?

        /// The first value of the header `name`, compared case-insensitively.
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Why a fetch failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong.
        public enum Kind: Sendable, Hashable {
            /// The URL is not http(s), or has no host.
            case unsupportedURL
            /// No whole response in time.
            case timedOut
            /// The body is larger than the request keeps.
            case tooLarge
            /// The connection failed or ended early, or too many redirections.
            case failed
        }

        /// What went wrong.
        public let kind: Kind
        /// A one-line description.
        public let description: String
    }

    /// Sends `method` (`GET`, `HEAD`…) for `url` with `headers`, following
    /// up to `redirects` redirections as a browser does, and waits at most
    /// `timeout` for each whole response; `http` and `https` (the server's
    /// certificate verified).
    ///
    /// - Parameters:
    ///   - method: the request method, `GET` or `HEAD` most often.
    ///   - url: what to fetch, `http` or `https`.
    ///   - headers: request headers beside `Host` and `Connection: close`.
    ///   - timeout: the longest wait for each whole response, connecting included.
    ///   - limit: the largest body kept in ``Response/body``, bytes;
    ///     a larger one fails with ``Failure/Kind/tooLarge``. `nil` keeps no
    ///     body, only counts it.
    ///   - redirects: the most redirections followed.
    ///   - verifiesServer: whether an `https` server's certificate must be
    ///     valid for its host and chain to the system's roots. `false` only
    ///     for servers known to present a self-signed certificate, such as a
    ///     Cast device's local setup server, and only to read what is public.
    ///   - loop: where the socket is opened.
    /// - Throws: ``Failure``, or the connection's error.
    public static func request(
        _ method: String, _ url: URL, headers: [(String, String)] = [], timeout: Duration,
        keepingBodyUpTo limit: Int? = nil, redirects: Int = 5, verifiesServer: Bool = true, on loop: any EventLoop
    ) async throws -> Response {
        var target = url
        for _ in 0...redirects {
            let response = try await Self.once(
                HTTPMethod(rawValue: method), target, headers: headers, timeout: timeout, limit: limit,
                verifiesServer: verifiesServer, on: loop)
            guard [301, 302, 303, 307, 308].contains(response.status),
                let location = response.header("Location"),
                let next = URL(string: location, relativeTo: target)?.absoluteURL
            else { return response }
            target = next
        }
        throw Failure(kind: .failed, description: "more than \(redirects) redirections from \(url)")
    }

    private static func once(
        _ method: HTTPMethod, _ url: URL, headers: [(String, String)], timeout: Duration, limit: Int?,
        verifiesServer: Bool, on loop: any EventLoop
    ) async throws -> Response {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host,
            !host.isEmpty
        else { throw Failure(kind: .unsupportedURL, description: "not an http(s) URL: \(url)") }
        let secure = scheme == "https"
        let port = url.port ?? (secure ? 443 : 80)
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        if !verifiesServer { tlsConfiguration.certificateVerification = .none }
        let tls = try secure ? NIOSSLContext(configuration: tlsConfiguration) : nil
        let promise = loop.makePromise(of: Response.self)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(TimeAmount(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    // Unverified, no SNI: a device's setup server is asked by address,
                    // and an address is not a valid SNI name (RFC 6066 §3).
                    if let tls {
                        try sync.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: verifiesServer ? host : nil))
                    }
                    try sync.addHTTPClientHandlers()
                    try sync.addHandler(ResponseCollector(promise: promise, limit: limit))
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
            promise.fail(Failure(kind: .timedOut, description: "no whole response from \(url) within \(timeout)"))
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
    private let limit: Int?
    private var response: HTTPFetch.Response?

    init(promise: EventLoopPromise<HTTPFetch.Response>, limit: Int?) {
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.response = HTTPFetch.Response(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, bodyLength: 0,
                body: self.limit == nil ? nil : Data())
        case .body(let bytes):
            guard var response = self.response else { return }
            response.bodyLength += bytes.readableBytes
            if let limit = self.limit {
                // Bounded as it arrives: a larger body ends the fetch, never grows memory.
                guard response.bodyLength <= limit else {
                    self.promise.fail(
                        HTTPFetch.Failure(kind: .tooLarge, description: "the body is larger than \(limit) bytes"))
                    context.close(promise: nil)
                    return
                }
                response.body?.append(contentsOf: bytes.readableBytesView)
            }
            self.response = response
        case .end:
            if let response = self.response {
                self.promise.succeed(response)
            } else {
                self.promise.fail(HTTPFetch.Failure(kind: .failed, description: "a response ended before its head"))
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.promise.fail(
            HTTPFetch.Failure(kind: .failed, description: "the server closed the connection mid-response"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.promise.fail(error)
        context.close(promise: nil)
    }
}
