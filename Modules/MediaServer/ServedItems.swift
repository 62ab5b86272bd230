import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

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
        /// A file ffmpeg writes: streamed as it grows, then served as a file.
        case conversion(MediaConversion)
        /// A film converted into HLS segments on demand: its playlist, and each segment once made.
        case segmented(SegmentedConversion)

        /// Stops what converts it, if anything does.
        func cancel() {
            switch self {
            case .conversion(let conversion): conversion.cancel()
            case .segmented(let conversion): conversion.cancel()
            case .file, .bytes: break
            }
        }
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

    /// Stops serving `token`; what it converted is cancelled and deleted.
    func remove(token: String) {
        let item = self.state.withLockedValue { $0.items.removeValue(forKey: token) }
        item?.content.cancel()
    }

    /// Serves nothing more; conversions are cancelled.
    func close() {
        let items = self.state.withLockedValue { state in
            state.closed = true
            defer { state.items.removeAll() }
            return state.items.values
        }
        for item in items { item.content.cancel() }
    }

    /// The conversion served under `token`, if that is one.
    func conversion(token: String) -> MediaConversion? {
        guard case .conversion(let conversion) = self.state.withLockedValue({ $0.items[token] })?.content else {
            return nil
        }
        return conversion
    }

    /// The HLS conversion served under `token`, if that is one.
    func segmented(token: String) -> SegmentedConversion? {
        guard case .segmented(let conversion) = self.state.withLockedValue({ $0.items[token] })?.content else {
            return nil
        }
        return conversion
    }

    var recentRequests: [MediaServerRequest] { self.state.withLockedValue { $0.requests } }

    /// Answers a GET (or HEAD: Hummingbird drops the body) for `name` under `token`.
    func respond(to request: Request, token: String, name: String, context: some RequestContext) async throws
        -> Response
    {
        let range = request.headers[.range]
        let record = { (status: HTTPResponse.Status) in
            self.state.withLockedValue { state in
                if state.requests.count == Self.remembered { state.requests.removeFirst() }
                state.requests.append(
                    MediaServerRequest(
                        method: request.method.rawValue, path: request.uri.path, range: range, status: status.code))
            }
        }
        guard var item = self.state.withLockedValue({ $0.items[token] }) else {
            record(.notFound)
            throw HTTPError(.notFound)
        }
        var headers: HTTPFields = [
            .contentType: item.contentType, .acceptRanges: "bytes", .accessControlAllowOrigin: "*",
            .accessControlExposeHeaders: "Content-Length, Content-Range, Accept-Ranges",
        ]
        if case .conversion(let conversion) = item.content {
            let progress = await conversion.started()
            if let failure = progress.failure {
                record(.internalServerError)
                throw HTTPError(.internalServerError, message: failure)
            }
            guard progress.isFinished else {
                // Growing: the whole stream from its start, as it is written (a
                // server may ignore Range, RFC 9110 §14.2), without a length.
                headers[.acceptRanges] = "none"
                record(.ok)
                return Response(status: .ok, headers: headers, body: Self.growing(conversion))
            }
            item.content = .file(conversion.output)
        }
        if case .segmented(let conversion) = item.content {
            item = try await Self.servedItem(of: conversion, name: name, record: record)
            headers[.contentType] = item.contentType
        }
        guard let size = Self.size(of: item.content) else {
            record(.notFound)
            throw HTTPError(.notFound)
        }
        return try await self.response(
            for: item.content, size: size, range: range, headers: headers, context: context, record: record)
    }

    /// What `name` is of an HLS conversion; a 404 when it is nothing, a 503
    /// when it cannot be made, each recorded.
    private static func servedItem(
        of conversion: SegmentedConversion, name: String, record: (HTTPResponse.Status) -> Void
    ) async throws -> Item {
        do {
            guard let served = try await Self.segmentedItem(conversion, name: name) else {
                record(.notFound)
                throw HTTPError(.notFound)
            }
            return served
        } catch let error as MediaServerError {
            record(.serviceUnavailable)
            throw HTTPError(.serviceUnavailable, message: error.message)
        }
    }

    /// The answer with `content`, `size` bytes long, for the `range` header:
    /// the whole, the part asked for, or 416 when that part lies outside it; recorded.
    private func response(
        for content: Content, size: Int, range: String?, headers: HTTPFields, context: some RequestContext,
        record: (HTTPResponse.Status) -> Void
    ) async throws -> Response {
        var headers = headers
        switch ByteRange(header: range, size: size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            record(.rangeNotSatisfiable)
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .part(let part):
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
            let body = try await self.body(content, range: part, context: context)
            record(.partialContent)
            return Response(status: .partialContent, headers: headers, body: body)
        case .whole:
            let body = try await self.body(content, range: nil, context: context)
            record(.ok)
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    /// What `name` is of an HLS conversion: its playlist (`….m3u8`), a
    /// media playlist beside a master playlist, or a segment (`N.ts`, a
    /// sound rendition's `aK-N.ts`; fragmented MP4's `init.mp4` and
    /// `N.m4s`, a sound rendition's `aK-init.mp4` and `aK-N.m4s`) once
    /// made; `nil` for anything else.
    private static func segmentedItem(_ conversion: SegmentedConversion, name: String) async throws(MediaServerError)
        -> Item?
    {
        // RFC 8216 §4: a playlist's media type.
        if MasterPlaylist.isMediaPlaylist(name) {
            return conversion.mediaPlaylists[name].map {
                Item(content: .bytes($0), contentType: "application/vnd.apple.mpegurl")
            }
        }
        if name.hasSuffix(".m3u8") {
            return Item(content: .bytes(conversion.playlist), contentType: "application/vnd.apple.mpegurl")
        }
        if conversion.fragmented, name.hasSuffix(SegmentedConversion.initialization),
            let output = conversion.outputs.firstIndex(
                of: String(name.dropLast(SegmentedConversion.initialization.count))),
            let path = try await conversion.initialization(output: output)
        {
            return Item(content: .file(path), contentType: "video/mp4")
        }
        // RFC 8216 §3.3: a fragmented MP4 media segment is served as MP4.
        let (suffix, type) = conversion.fragmented ? (".m4s", "video/mp4") : (".ts", "video/mp2t")
        guard name.hasSuffix(suffix), name.count <= 16 else { return nil }
        let parts = name.dropLast(suffix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard let index = parts.last.flatMap({ Int($0) }), index >= 0, String(index) == parts.last.map(String.init),
            let output = parts.count == 1 ? 0 : conversion.outputs.firstIndex(of: parts[0] + "-"), parts.count <= 2,
            let path = try await conversion.segment(index, output: output)
        else { return nil }
        return Item(content: .file(path), contentType: type)
    }

    /// A body that follows a conversion's file as ffmpeg writes it, to its end.
    private static func growing(_ conversion: MediaConversion) -> ResponseBody {
        ResponseBody { writer in
            let descriptor = open(conversion.output, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw HTTPError(.notFound) }
            defer { _ = Glibc.close(descriptor) }
            var offset = 0
            while true {
                // Asked before reading: once finished, a read that finds nothing is the end.
                let progress = conversion.progress
                let position = off_t(offset)
                // Read straight into the buffer the response writes: no intermediate array.
                let chunk = try await NIOThreadPool.singleton.runIfActive { () -> ByteBuffer in
                    var chunk = ByteBufferAllocator().buffer(capacity: 256 << 10)
                    chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: 256 << 10) { space in
                        max(0, pread(descriptor, space.baseAddress, space.count, position))
                    }
                    return chunk
                }
                if chunk.readableBytes > 0 {
                    offset += chunk.readableBytes
                    try await writer.write(chunk)
                    continue
                }
                if progress.failure != nil || progress.isFinished { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            try await writer.finish(nil)
        }
    }

    /// The item's size now; `nil` when its file is gone.
    private static func size(of content: Content) -> Int? {
        switch content {
        case .conversion(let conversion):
            return Self.size(of: .file(conversion.output))
        case .segmented:
            return nil
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
        case .conversion(let conversion):
            return try await self.body(.file(conversion.output), range: range, context: context)
        case .segmented:
            throw HTTPError(.notFound)
        case .file(let path):
            guard let range else { return try await self.files.loadFile(path: path, context: context) }
            return try await self.files.loadFile(path: path, range: range, context: context)
        }
    }
}
