public import CastLogging
public import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// An HTTP server for what is on this machine — files and bytes in memory —
/// that a Cast receiver fetches: `cast play ~/film.mp4` and any app that
/// casts its own media. On Hummingbird 2.
///
/// It binds to the address of the route toward the device (what the
/// device can reach) on a free port, and serves only what was handed to
/// ``serve(file:contentType:)`` or ``serve(_:named:contentType:)``, each
/// under a URL with 128 random bits in it, so nothing else on the network
/// can read the user's files. For each it answers GET and HEAD with the
/// right `Content-Type`, `Accept-Ranges`, and byte ranges (206 for a
/// range, 416 past the end, RFC 9110 §14) — seeking needs them — and the
/// CORS headers receivers need for text tracks and MSE players, preflight
/// included. Connections are bounded; ``stop()`` ends it.
///
/// ```swift
/// let server = try await MediaServer.start(toward: device.host)
/// let url = try server.serve(file: URL(fileURLWithPath: "/home/me/film.mp4"))
/// try await media.load(MediaLoadRequestData(
///     mediaInformation: MediaInformation(contentID: url.absoluteString, contentType: "video/mp4")))
/// ```
public final class MediaServer: Sendable {
    /// The address it is bound to.
    public let host: String
    /// The port it listens on.
    public let port: Int
    private let registry: ServedItems
    /// Where conversions write: `TMPDIR/cast-media-PID-RANDOM`.
    private let conversionFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "cast-media-\(getpid())-\(UInt32.random(in: .min ... .max))")
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(host: String, port: Int, registry: ServedItems, group: ServiceGroup, running: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.registry = registry
        self.group = group
        self.running = running
    }

    /// Starts a server a device at `device` (a numeric address: the one the
    /// control connection uses) can reach.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/noRoute`` when no
    ///   local address routes toward `device`; ``MediaServerError/Code-swift.struct/bindFailed``;
    ///   ``MediaServerError/Code-swift.struct/invalidConfiguration``.
    public static func start(
        toward device: String, configuration: MediaServerConfiguration = MediaServerConfiguration(),
        logger: CastLogger = .shared
    ) async throws(MediaServerError) -> MediaServer {
        guard (0...65_535).contains(configuration.port), (1...1_024).contains(configuration.maximumConnections),
            configuration.idleTimeout > .zero
        else {
            throw MediaServerError(.invalidConfiguration, "port, connection limit or idle timeout out of range")
        }
        guard let host = configuration.host ?? LocalRoute.address(toward: device) else {
            throw MediaServerError(.noRoute, LocalRoute.unreachable(device))
        }
        let registry = ServedItems()
        let log = logger.makeLogger(subsystem: "MediaServer")
        let router = MediaRoutes.router(serving: registry)
        let (ports, announce) = AsyncStream<Int>.makeStream()
        let idle = configuration.idleTimeout.components
        let application = Application(
            router: router,
            server: .http1(
                configuration: .init(
                    idleTimeout: .seconds(idle.seconds) + .nanoseconds(idle.attoseconds / 1_000_000_000))),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? 0)
                announce.finish()
            },
            logger: log)
        var groupConfiguration = ServiceGroupConfiguration(services: [application], logger: log)
        // A paused receiver keeps a response open; stopping does not wait for it long.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(2)
        let group = ServiceGroup(configuration: groupConfiguration)
        let running = Task {
            defer { announce.finish() }
            try await group.run()
        }
        guard let port = await ports.first(where: { _ in true }), port > 0 else {
            let failure: (any Error)?
            do {
                try await running.value
                failure = nil
            } catch {
                failure = error
            }
            throw MediaServerError(.bindFailed, "cannot listen on \(host):\(configuration.port)", cause: failure)
        }
        return MediaServer(host: host, port: port, registry: registry, group: group, running: running)
    }

    deinit {
        // Dropped without stop(): it stops all the same.
        self.registry.close()
        try? FileManager.default.removeItem(at: self.conversionFolder)
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }

    /// The server's root, e.g. `http://192.168.1.5:40123`.
    public var baseURL: URL {
        // IPv6 in brackets; a zone (fe80::1%eth0) percent-encoded (RFC 6874).
        let host = self.host.contains(":") ? "[\(self.host.replacingOccurrences(of: "%", with: "%25"))]" : self.host
        return URL(string: "http://\(host):\(self.port)")!
    }

    /// Serves the file at `file` until withdrawn or the server stops; the
    /// URL a receiver fetches it from. The file is opened at each request,
    /// so one that grows (a recording) is served as it is then.
    ///
    /// - Parameters:
    ///   - file: the file, a local path.
    ///   - contentType: the `Content-Type`; `nil` guesses it from the
    ///     extension (``MediaContentType``), `application/octet-stream` when unknown.
    /// - Throws: ``MediaServerError/Code-swift.struct/unreadableFile`` when
    ///   it is not a readable regular file; ``MediaServerError/Code-swift.struct/unavailable``.
    public func serve(file: URL, contentType: String? = nil) throws(MediaServerError) -> URL {
        let path = file.standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw MediaServerError(.unreadableFile, "\(path) is not a readable file")
        }
        let type = contentType ?? MediaContentType.guess(from: path) ?? "application/octet-stream"
        return try self.add(.file(path), name: file.lastPathComponent, contentType: type)
    }

    /// Serves `file` converted by ffmpeg as `plan` says (``ConversionPlan``):
    /// fragmented MP4, written into a working folder and served as it grows —
    /// the receiver starts playing after the first fragment. While ffmpeg
    /// runs, each request gets the stream from its start (no byte ranges:
    /// seeking reaches what was fetched); once it finished, the file is
    /// served whole with byte ranges. Withdrawing the URL or stopping the
    /// server stops ffmpeg and deletes what it wrote.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/unreadableFile``;
    ///   ``MediaServerError/Code-swift.struct/conversionFailed`` when ffmpeg
    ///   cannot be started or the working folder made;
    ///   ``MediaServerError/Code-swift.struct/unavailable``.
    public func serve(file: URL, converting plan: ConversionPlan, with ffmpeg: URL) throws(MediaServerError) -> URL {
        let path = file.standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaServerError(.unreadableFile, "\(path) is not a readable file")
        }
        return try self.serve(input: .file(file), converting: plan, with: ffmpeg)
    }

    /// Serves `input` — a file, or a video on the web that ffmpeg fetches
    /// with its headers — converted by ffmpeg as `plan` says into
    /// fragmented MP4, as ``serve(file:converting:with:)`` does.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when ffmpeg
    ///   cannot be started or the working folder made; ``MediaServerError/Code-swift.struct/unavailable``.
    public func serve(input: MediaInput, converting plan: ConversionPlan, with ffmpeg: URL) throws(MediaServerError)
        -> URL
    {
        let folder = try self.workingFolder()
        let name = (input.name as NSString).deletingPathExtension + ".mp4"
        let conversion = try MediaConversion(
            input: input, plan: plan, ffmpeg: ffmpeg, folder: folder, name: UUID().uuidString + ".mp4")
        do {
            return try self.add(.conversion(conversion), name: name, contentType: plan.contentType(ofOriginal: name))
        } catch {
            conversion.cancel()
            throw error
        }
    }

    /// Serves `file` converted by ffmpeg as `plan` says, as HLS: a VOD
    /// playlist that lists every segment and the film's whole duration
    /// before any is made, and MPEG-TS segments that ffmpeg makes when the
    /// receiver asks for them (``ConversionPlan/isSegmentable``). A seek
    /// far ahead starts ffmpeg there; segments made are served again; the
    /// working folder stays bounded, and withdrawing the URL or stopping
    /// the server stops ffmpeg and deletes it. The URL is the playlist's;
    /// tell the receiver `application/vnd.apple.mpegurl` with MPEG-TS
    /// segments. A film with several sounds (``ConversionPlan/soundRenditions``)
    /// is served as a master playlist: the video in its own segments and
    /// each sound an audio rendition of its own (``soundRenditions(of:)``),
    /// all made by the same ffmpeg run.
    ///
    /// A copied video is cut at its own key frames, which ffprobe lists
    /// first (a few seconds for a two-hour film); a transcoded one every 6 s.
    ///
    /// - Parameters:
    ///   - file: the film.
    ///   - plan: how to convert it; ``ConversionPlan/isSegmentable`` must hold.
    ///   - media: what ffprobe read of it; its duration is needed.
    ///   - tools: ffprobe (for a copied video's key frames) and ffmpeg.
    ///   - start: where the receiver will start, seconds: ffmpeg begins
    ///     converting the segment that holds it now, so it is ready sooner
    ///     than the receiver's LOAD and playlist round trips would let it
    ///     start; `nil` (the default) waits for the first segment asked for.
    /// - Throws: ``MediaServerError/Code-swift.struct/unreadableFile``;
    ///   ``MediaServerError/Code-swift.struct/unsupportedMedia`` when the
    ///   plan is not segmentable or the duration is unknown;
    ///   ``MediaServerError/Code-swift.struct/probeFailed`` when the key
    ///   frames cannot be listed; ``MediaServerError/Code-swift.struct/conversionFailed``
    ///   without ffmpeg or a working folder; ``MediaServerError/Code-swift.struct/unavailable``.
    public func serve(
        file: URL, segmenting plan: ConversionPlan, media: ProbedMedia, tools: MediaTools,
        startingAt start: Double? = nil
    ) async throws(MediaServerError) -> URL {
        let path = file.standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaServerError(.unreadableFile, "\(path) is not a readable file")
        }
        return try await self.serve(input: .file(file), segmenting: plan, media: media, tools: tools, startingAt: start)
    }

    /// Serves `input` — a file, or a video on the web that ffmpeg fetches
    /// with its headers — as HLS made on demand, as
    /// ``serve(file:segmenting:media:tools:startingAt:)`` does.
    ///
    /// - Throws: as ``serve(file:segmenting:media:tools:startingAt:)`` does, but for an unreadable file.
    public func serve(
        input: MediaInput, segmenting plan: ConversionPlan, media: ProbedMedia, tools: MediaTools,
        startingAt start: Double? = nil
    ) async throws(MediaServerError) -> URL {
        guard plan.isSegmentable, let duration = media.duration, duration > .zero else {
            throw MediaServerError(
                .unsupportedMedia,
                "\(input.name) cannot be cut into HLS segments (no H.264 or copied HEVC video, or no duration)")
        }
        guard let ffmpeg = tools.ffmpeg else { throw MediaServerError(.conversionFailed, "ffmpeg is not installed") }
        var keyFrames: [Double]?
        if let video = plan.video, !video.transcodes {
            keyFrames = try await tools.keyFrames(of: input, stream: video.stream.index).map { $0 - media.startTime }
        }
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let layout = SegmentLayout(duration: seconds, keyFrames: keyFrames)
        let conversion = try SegmentedConversion(
            input: input, plan: plan, layout: layout, startTime: media.startTime, ffmpeg: ffmpeg,
            folder: try self.workingFolder().appendingPathComponent(UUID().uuidString))
        do {
            var name = (input.name as NSString).deletingPathExtension + ".m3u8"
            // The media playlists beside a master playlist have names of their own.
            if MasterPlaylist.isMediaPlaylist(name) { name = "film.m3u8" }
            let url = try self.add(.segmented(conversion), name: name, contentType: "application/vnd.apple.mpegurl")
            if let start { try await conversion.begin(at: layout.index(containing: start)) }
            return url
        } catch {
            conversion.cancel()
            throw error
        }
    }

    /// The media playlists of the sound renditions of the film served as
    /// HLS at `url`, in the order of ``ConversionPlan/soundRenditions``
    /// (what a LOAD's audio tracks name); empty when it has none or `url`
    /// names no HLS conversion.
    public func soundRenditions(of url: URL) -> [URL] {
        let components = url.pathComponents
        guard components.count >= 3, let conversion = self.registry.segmented(token: components[2]) else { return [] }
        let count = conversion.outputs.count - 1
        guard count > 0 else { return [] }
        return (1...count).map {
            url.deletingLastPathComponent().appendingPathComponent(MasterPlaylist.renditionName($0))
        }
    }

    /// How far the conversion served at `url` is; `nil` when `url` names no conversion.
    public func conversionProgress(of url: URL) -> ConversionProgress? {
        let components = url.pathComponents
        guard components.count >= 3 else { return nil }
        return self.registry.conversion(token: components[2])?.progress
            ?? self.registry.segmented(token: components[2])?.progress.progress
    }

    /// What the HLS conversion served at `url` has done; `nil` when `url` names none.
    func segmentedProgress(of url: URL) -> SegmentedProgress? {
        let components = url.pathComponents
        guard components.count >= 3 else { return nil }
        return self.registry.segmented(token: components[2])?.progress
    }

    /// The folder conversions write into, made at the first: private to this
    /// user (0700), deleted when the server stops.
    private func workingFolder() throws(MediaServerError) -> URL {
        let folder = self.conversionFolder
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw MediaServerError(.conversionFailed, "cannot make \(folder.path)", cause: error)
        }
        return folder
    }

    /// Serves `bytes` (subtitles made on the fly, a cover picture) as
    /// `name` until withdrawn or the server stops.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/unavailable``.
    public func serve(_ bytes: [UInt8], named name: String, contentType: String) throws(MediaServerError) -> URL {
        try self.add(.bytes(bytes), name: name, contentType: contentType)
    }

    /// Stops serving what `url` names (a URL this server gave).
    public func withdraw(_ url: URL) {
        let components = url.pathComponents
        guard components.count >= 3 else { return }
        self.registry.remove(token: components[2])
    }

    /// What was asked of the server lately, oldest first (at most the last 64 requests).
    public var recentRequests: [MediaServerRequest] { self.registry.recentRequests }

    /// Stops listening and serving; open responses get 2 s to finish.
    public func stop() async {
        self.registry.close()
        try? FileManager.default.removeItem(at: self.conversionFolder)
        await self.group.triggerGracefulShutdown()
        _ = try? await self.running.value
    }

    private func add(_ content: ServedItems.Content, name: String, contentType: String) throws(MediaServerError) -> URL
    {
        guard let token = self.registry.add(content, contentType: contentType) else {
            throw MediaServerError(.unavailable, "the server is stopped or serves \(ServedItems.limit) items already")
        }
        // The name only helps people and receivers that look at extensions.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%;")
        let escaped = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        let url = URL(string: self.baseURL.absoluteString + "/media/\(token)/" + (escaped.isEmpty ? "media" : escaped))
        guard let url else { throw MediaServerError(.unavailable, "cannot make a URL for \(name)") }
        return url
    }
}

/// One request the server answered.
public struct MediaServerRequest: Sendable, Hashable {
    /// `GET` or `HEAD`.
    public var method: String
    /// The item's token path (`/media/TOKEN/NAME`).
    public var path: String
    /// The `Range` header, if any.
    public var range: String?
    /// The status sent.
    public var status: Int
}
