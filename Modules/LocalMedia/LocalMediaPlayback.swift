public import CastLogging
public import CastMedia
public import CastMediaServer
import Foundation

/// What a user names — files, folders, playlists, URLs, web pages — played
/// on a device in one call, as `cast play` plays them: local files served
/// from this machine toward the device (``LocalMedia``, converted when the
/// device cannot play them), loaded with their text tracks
/// (``LocalMediaLoader``), one film resumed where it was last stopped and
/// its position kept when it stops again (`ResumePositions`), playback
/// followed until it ends (``PlaybackWatch``: progress, a stalled stream
/// loaded again, failures named with their likely cause).
///
/// ```swift
/// let items = try PlayItem.resolve(["~/Films/Film.mkv"])
/// let playback = try await LocalMediaPlayback.start(items, on: media, toward: link.host)
/// for try await event in playback.events() {
///     if case .progress(let progress) = event { print(progress.position) }
/// }
/// await playback.close()
/// ```
public final class LocalMediaPlayback: Sendable {
    /// How to play.
    public struct Configuration: Sendable {
        /// What to load and how (start, titles, subtitles, sound, queue).
        /// A `nil` ``LocalMediaLoader/Options/start`` resumes a film kept in
        /// ``resumePositions``.
        public var load = LocalMediaLoader.Options()
        /// The server local files are served from (port, address).
        public var server = MediaServerConfiguration()
        /// When local files are converted.
        public var convert: LocalMedia.ConvertMode = .auto
        /// The device's model, for what it plays (default: the oldest Chromecast's limits).
        public var deviceModel: String?
        /// ffprobe, ffmpeg and yt-dlp (default: those installed).
        public var tools: MediaTools?
        /// How long BUFFERING may last before the media is loaded again. Default 20 s.
        public var bufferingTimeout: Duration = .seconds(20)
        /// Where a single local film's stopping position is kept and read;
        /// `nil` never resumes.
        public var resumePositions: ResumePositions?

        /// Plays from the beginning, converting what the device cannot play, resuming nothing.
        public init() {}
    }

    /// The media session's client the items were loaded into.
    public let media: RemoteMediaClient
    /// The server local files (and web videos converted) are served from;
    /// `nil` when nothing played is fetched from this machine.
    public let server: MediaServer?
    /// The receiver's answer to the LOAD or QUEUE_LOAD.
    public let status: MediaStatus?
    /// Where the film resumed, seconds, when it did.
    public let resumedPosition: Double?
    private let watch: PlaybackWatch
    private let resuming: (file: URL, positions: ResumePositions)?
    private let report: @Sendable (String) -> Void

    private init(
        media: RemoteMediaClient, server: MediaServer?, loaded: LocalMediaLoader.Loaded, resumedPosition: Double?,
        watch: PlaybackWatch, resuming: (file: URL, positions: ResumePositions)?,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.media = media
        self.server = server
        self.status = loaded.status
        self.resumedPosition = resumedPosition
        self.watch = watch
        self.resuming = resuming
        self.report = report
    }

    /// Plays `items` through `media` on the device at `host` (the address
    /// the connection reached, toward which the server's address is chosen).
    ///
    /// - Parameters:
    ///   - items: what to play, in order (``PlayItem/resolve(_:)``).
    ///   - media: the media session's client on the device.
    ///   - host: the device's address, as connected to.
    ///   - configuration: how to play.
    ///   - logger: the log hub the server logs to.
    ///   - report: told each step, one line for people ("serving local files from …").
    ///   - clock: where the watch ticks (tests pass a clock they advance).
    /// - Throws: ``LocalMediaError`` (a file that cannot be served or
    ///   converted, a track not there, `unreachable` when the LOAD failed and
    ///   the receiver never fetched anything from the server);
    ///   `MediaServerError` when the server cannot start; the LOAD's `CastMediaError`.
    public static func start(
        _ items: [PlayItem], on media: RemoteMediaClient, toward host: String,
        configuration: Configuration = Configuration(), logger: CastLogger = .shared,
        report: @escaping @Sendable (String) -> Void = { _ in }, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> LocalMediaPlayback {
        let resuming = configuration.resumePositions.flatMap { positions in
            Self.resumable(items).map { (file: $0, positions: positions) }
        }
        var options = configuration.load
        let resumed = options.start == nil ? resuming.flatMap { $0.positions.position(for: $0.file) } : nil
        options.start = options.start ?? resumed
        var server = try await Self.server(for: items, toward: host, configuration: configuration, logger: logger)
        let tools = configuration.tools ?? .installed()
        let device = CastMediaSupport.forModel(configuration.deviceModel)
        let local = server.map {
            LocalMedia(server: $0, tools: tools, device: device, mode: configuration.convert, report: report)
        }
        let loaded: LocalMediaLoader.Loaded
        do {
            loaded = try await LocalMediaLoader(local: local, tools: tools, device: device, report: report)
                .load(items, into: media, options: options)
        } catch {
            await server?.stop()
            throw Self.explained(error, server: server)
        }
        // A web page whose video the device fetches itself needs no server.
        if let unused = server, !loaded.usesServer {
            await unused.stop()
            server = nil
        }
        if let server {
            let files = items.contains { if case .file = $0.source { true } else { false } }
            report("serving \(files ? "local files" : "the web video") from \(server.baseURL.absoluteString)")
        }
        let watch = PlaybackWatch(
            media: media, server: server, converting: loaded.converting, itemCount: items.count,
            bufferingTimeout: configuration.bufferingTimeout, clock: clock)
        return LocalMediaPlayback(
            media: media, server: server, loaded: loaded, resumedPosition: resumed, watch: watch, resuming: resuming,
            report: report)
    }

    /// Playback's events until it ends (the last is
    /// ``PlaybackWatch/Event/ended(_:)``); at the end a resumed film's
    /// position is kept, or forgotten when it played to its end.
    ///
    /// - Throws (from the stream): what ``PlaybackWatch/events()`` throws.
    public func events() -> AsyncThrowingStream<PlaybackWatch.Event, any Error> {
        let watched = self.watch.events()
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await event in watched {
                        if case .ended(let end) = event { self.keep(end) }
                        continuation.yield(event)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Self.explained(error, server: self.server))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Stops the media (STOP); the events end with ``PlaybackWatch/End/Outcome-swift.enum/stopped``.
    public func stop() {
        self.watch.stop()
    }

    /// Stops serving local files. The media session stays attached.
    public func close() async {
        await self.server?.stop()
    }

    /// A server when an item or its subtitles are local files, or an item is
    /// a web page (its video may need converting); `nil` for media URLs alone.
    private static func server(
        for items: [PlayItem], toward host: String, configuration: Configuration, logger: CastLogger
    ) async throws -> MediaServer? {
        let local = items.contains { item in
            if case .file? = item.subtitles { return true }
            switch item.source {
            case .file: return true
            case .url(let url): return MediaContentType.guess(from: url) == nil && configuration.load.contentType == nil
            }
        }
        guard local else { return nil }
        return try await MediaServer.start(toward: host, configuration: configuration.server, logger: logger)
    }

    /// The one local file played; `nil` for URLs and for several items (a queue resumes nowhere in particular).
    private static func resumable(_ items: [PlayItem]) -> URL? {
        guard items.count == 1, case .file(let file) = items[0].source else { return nil }
        return file
    }

    /// Keeps where the resumed film stopped, or forgets it when it played to its end; a failure to write is told.
    private func keep(_ end: PlaybackWatch.End) {
        guard let (file, positions) = self.resuming else { return }
        do {
            if end.outcome == .finished {
                try positions.forget(file)
            } else if let position = end.position {
                try positions.remember(position, duration: end.duration, for: file)
            }
        } catch {
            self.report("cannot keep where \(file.lastPathComponent) stopped: \(error.localizedDescription)")
        }
    }

    /// A failed LOAD explained: when the receiver never asked the server
    /// for anything, the likely cause is that it cannot reach this machine.
    private static func explained(_ error: any Error, server: MediaServer?) -> any Error {
        guard let error = error as? CastMediaError, error.code == .loadFailed, let server,
            server.recentRequests.isEmpty
        else { return error }
        return LocalMediaError(
            .unreachable,
            "\(error); the receiver never fetched anything from \(server.baseURL.absoluteString): "
                + "can it reach this machine (a firewall, another network)?")
    }
}
