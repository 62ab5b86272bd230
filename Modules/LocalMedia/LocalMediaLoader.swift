public import CastMedia
public import CastMediaServer
public import Foundation

/// Loads what a user names — URLs, web pages, local files, folders' and
/// playlists' items (``PlayItem``) — into a media session: one item with
/// LOAD, several as one queue (QUEUE_LOAD); local files served through
/// ``LocalMedia`` as the device plays them, each with its text tracks (the
/// subtitles given or beside it first, then the file's own) and the one
/// shown; the metadata from the file's tags. A URL that names no media
/// type is a web page: yt-dlp finds its video (`MediaTools.webVideo(on:timeout:)`)
/// and the format the device plays is loaded with the page's title and
/// thumbnail. What `cast play` loads.
///
/// ```swift
/// let items = try PlayItem.resolve(["~/Films/Film.mkv"])
/// let loaded = try await LocalMediaLoader(local: local).load(items, into: client)
/// ```
public struct LocalMediaLoader: Sendable {
    /// How to load.
    public struct Options: Sendable, Hashable {
        /// Where to start, seconds; `nil` for the beginning (or a live stream's edge).
        public var start: Double?
        /// The first item's MIME type; guessed from its extension or read by ffprobe when `nil`.
        public var contentType: String?
        /// The title shown for a single item (default: a playlist's, the file's tag, the file name).
        public var title: String?
        /// The subtitle line shown with each item (default: the file's artist).
        public var subtitle: String?
        /// An image URL shown with each item.
        public var imageURL: String?
        /// Which subtitles the first item shows (default: those given or beside it, else the file's default).
        public var subtitles: SubtitleChoice?
        /// The language of subtitles given as a file or URL (BCP 47). Default `en`.
        public var subtitlesLanguage = "en"
        /// The first item's sound, among a local file's audio streams.
        public var audio: AudioChoice?
        /// The first item's Nth subtitle stream drawn into the picture (picture subtitles).
        public var burnSubtitles: Int?
        /// Whether the items are live streams.
        public var isLive = false
        /// A queue's repeat mode.
        public var repeatMode: RepeatMode = .off

        /// Options that load each item from its beginning as the file describes it.
        public init() {}
    }

    /// What was loaded.
    public struct Loaded: Sendable {
        /// The receiver's answer to the LOAD or QUEUE_LOAD.
        public var status: MediaStatus?
        /// The URLs served while ffmpeg converts them (for ``PlaybackWatch``).
        public var converting: [URL]
        /// Whether anything loaded is fetched from ``LocalMedia/server``
        /// (a local file or subtitles, a web video converted or relayed):
        /// the server must run while it plays.
        public var usesServer = false
    }

    /// Serves local files; `nil` when only URLs are loaded.
    public let local: LocalMedia?
    /// Reads web pages (yt-dlp): `local`'s tools, or those given.
    public let tools: MediaTools
    /// What the device plays, for a web page's format: `local`'s device, or the one given.
    public let device: CastMediaSupport
    /// Told each step, one line for people ("loading a queue of 3").
    public let report: @Sendable (String) -> Void

    /// A loader serving local files through `local`; web pages are read with
    /// `tools` (default: `local`'s, else those installed) for `device`
    /// (default: `local`'s, else the oldest Chromecast's limits).
    public init(
        local: LocalMedia?, tools: MediaTools? = nil, device: CastMediaSupport? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.local = local
        self.tools = tools ?? local?.tools ?? .installed()
        self.device = device ?? local?.device ?? .chromecast
        self.report = report
    }

    /// Loads `items` into `media` as `options` say.
    ///
    /// - Throws: ``LocalMediaError`` (a file that cannot be served, a
    ///   subtitle track or language not there, local files without a
    ///   server, unreadable subtitles); the media request's `CastMediaError`.
    public func load(_ items: [PlayItem], into media: RemoteMediaClient, options: Options = Options())
        async throws -> Loaded
    {
        var queue: [MediaQueueItem] = []
        var converting: [URL] = []
        var usesServer = false
        for (index, item) in items.enumerated() {
            let served = try await self.content(of: item, first: index == 0, options: options)
            if served.isConverted { converting.append(served.url) }
            if let local = self.local {
                let base = local.server.baseURL.absoluteString
                if case .file? = item.subtitles { usesServer = true }
                if served.url.absoluteString.hasPrefix(base) { usesServer = true }
            }
            var (tracks, active) = try self.textTracks(
                of: item, served: served, choice: index == 0 ? options.subtitles : nil, options: options)
            // The film's sounds after its text tracks, the default one active.
            let firstSound = tracks.count + 1
            tracks += served.soundTracks(numberedFrom: firstSound)
            if let sound = served.defaultSoundTrackID(numberedFrom: firstSound) { active.append(sound) }
            let information = served.mediaInformation(
                metadata: Self.metadata(of: item, served: served, single: items.count == 1, options: options),
                tracks: tracks, streamType: options.isLive || served.isLive ? .live : .buffered)
            queue.append(MediaQueueItem(media: information, activeTrackIDs: active.isEmpty ? nil : active))
        }
        if queue.count == 1, let only = queue.first, let information = only.media {
            let status = try await media.load(
                MediaLoadRequestData(
                    mediaInformation: information, currentTime: options.start, activeTrackIDs: only.activeTrackIDs))
            return Loaded(status: status, converting: converting, usesServer: usesServer)
        }
        self.report("loading a queue of \(queue.count)")
        let status = try await media.queueLoad(
            items: queue, repeatMode: options.repeatMode, currentTime: options.start)
        return Loaded(status: status, converting: converting, usesServer: usesServer)
    }

    /// The title (the one given for a single item, a playlist's, the file's
    /// tag, the file name), subtitle line, artist, album and image.
    private static func metadata(of item: PlayItem, served: LocalMedia.Served, single: Bool, options: Options)
        -> MediaMetadata
    {
        let image = options.imageURL ?? served.imageURL?.absoluteString
        var metadata = MediaMetadata(type: .generic, images: image.map { [MediaImage(url: $0)] } ?? [])
        let title = (single ? options.title : nil) ?? item.title ?? served.title ?? item.displayTitle
        metadata.setString(title, forKey: .title)
        if let subtitle = options.subtitle ?? served.artist { metadata.setString(subtitle, forKey: .subtitle) }
        if let artist = served.artist { metadata.setString(artist, forKey: .artist) }
        if let album = served.album { metadata.setString(album, forKey: .albumName) }
        return metadata
    }

    /// What the receiver fetches for `item`: a URL as given, a local file through ``local``.
    private func content(of item: PlayItem, first: Bool, options: Options) async throws -> LocalMedia.Served {
        let contentType = first ? options.contentType : nil
        switch item.source {
        case .url(let url):
            guard let parsed = URL(string: url) else { throw LocalMediaError(.notFound, "\(url) is not a URL") }
            if let type = contentType ?? MediaContentType.guess(from: url) {
                return LocalMedia.Served(url: parsed, contentType: type, isConverted: false)
            }
            guard ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else {
                throw LocalMediaError(.unknownType, "cannot tell what kind of media \(url) is")
            }
            return try await self.webPage(parsed, start: first ? options.start ?? 0 : nil)
        case .file(let file):
            guard let local = self.local else {
                throw LocalMediaError(.needsServer, "\(file.path) is a local file, and no server serves them")
            }
            return try await local.serve(
                file, contentType: contentType, audio: first ? options.audio : nil,
                burningSubtitles: first ? options.burnSubtitles : nil, startingAt: first ? options.start ?? 0 : nil)
        }
    }

    /// The video on the web page `page`, in the format the device plays.
    private func webPage(_ page: URL, start: Double?) async throws -> LocalMedia.Served {
        let video: WebVideo
        do {
            video = try await self.tools.webVideo(on: page)
        } catch {
            throw LocalMediaError(self.tools.ytDlp == nil ? .unknownType : .unplayable, error.message)
        }
        let best = video.bestFormat(for: self.device)
        if best == nil || best.map(Self.answersOnlyWithItsHeaders) == true {
            return try await self.throughServer(video, best: best, page: page, start: start)
        }
        guard let format = best else { throw LocalMediaError(.unplayable, "no format of \(page.absoluteString)") }
        self.report(
            "playing the video on \(page.host ?? page.absoluteString): format \(format.id) (\(format.fileExtension)"
                + (format.height.map { ", \($0)p" } ?? "") + ")")
        var served = LocalMedia.Served(url: format.url, contentType: format.contentType, isConverted: false)
        served.title = video.title
        served.duration = video.duration
        served.imageURL = video.thumbnailURL
        served.isLive = video.isLive
        return served
    }

    /// The web video served through this machine: `best`, a format the
    /// device plays that only answers with its site's headers, copied; else
    /// the format most worth converting, converted. Without a server (or
    /// ffmpeg) it is refused, naming what the site offers.
    private func throughServer(_ video: WebVideo, best: WebVideo.Format?, page: URL, start: Double?) async throws
        -> LocalMedia.Served
    {
        guard let local = self.local, self.tools.ffmpeg != nil, let format = best ?? video.formatToConvert else {
            let offered = Set(video.formats.map { "\($0.videoCodec ?? "?")/\($0.audioCodec ?? "?")" }).sorted()
            throw LocalMediaError(
                .unplayable,
                "none of the \(video.formats.count) formats of the video on \(page.absoluteString) is one a "
                    + "\(self.device.name) plays (video/audio: \(offered.joined(separator: ", ")))"
                    + (self.tools.ffmpeg == nil ? "; install ffmpeg to convert it" : ""))
        }
        self.report(
            "playing the video on \(page.host ?? page.absoluteString) through this machine: format \(format.id) "
                + "(\(format.fileExtension)\(format.height.map { ", \($0)p" } ?? ""))"
                + (best == nil
                    ? ", which a \(self.device.name) cannot play as it is"
                    : ", which answers only with its site's cookie or credentials"))
        return try await local.serve(web: format, of: video, relaying: best != nil, startingAt: start)
    }

    /// Whether `format`'s URL answers only with headers a TV does not send (a cookie, credentials).
    private static func answersOnlyWithItsHeaders(_ format: WebVideo.Format) -> Bool {
        format.httpHeaders.keys.contains { ["cookie", "authorization"].contains($0.lowercased()) }
    }

    /// The item's text tracks — the subtitles given or beside the file first,
    /// then the file's own — and which is shown: what `choice` asks for, else
    /// the one given or beside the file, else the file's default.
    private func textTracks(
        of item: PlayItem, served: LocalMedia.Served, choice: SubtitleChoice?, options: Options
    ) throws -> ([MediaTrack], [Int]) {
        var tracks: [MediaTrack] = []
        var shown: [Int] = []
        if let subtitles = item.subtitles {
            tracks.append(
                MediaTrack(
                    trackID: 1, kind: .text, subtype: .subtitles, contentID: try self.subtitlesURL(subtitles),
                    contentType: "text/vtt", language: options.subtitlesLanguage, name: "Subtitles"))
            shown = [1]
        }
        let first = tracks.count + 1
        tracks += served.textTracks(numberedFrom: first)
        if shown.isEmpty, let id = served.defaultTextTrackID(numberedFrom: first) { shown = [id] }
        switch choice {
        case .off?:
            shown = []
        case .number(let number)?:
            guard number <= tracks.count else {
                throw LocalMediaError(.subtitleTrackNotFound, "there are \(tracks.count) subtitle tracks")
            }
            shown = [number]
        case .language(let language)?:
            guard let track = tracks.first(where: { MediaLanguage.matches($0.language, language) }) else {
                let known = tracks.compactMap(\.language)
                throw LocalMediaError(
                    .subtitleTrackNotFound,
                    "no subtitles in that language"
                        + (known.isEmpty ? "" : " (there are: \(known.joined(separator: ", ")))"))
            }
            shown = [track.trackID]
        case .source?, nil:
            break
        }
        return (tracks, shown)
    }

    /// Subtitles as a URL: a local `.srt` is made WebVTT and served, a local `.vtt` served as it is.
    private func subtitlesURL(_ subtitles: PlayItem.Source) throws -> String {
        switch subtitles {
        case .url(let url):
            return url
        case .file(let file):
            guard let server = self.local?.server else {
                throw LocalMediaError(.needsServer, "\(file.path) is a local file, and no server serves them")
            }
            let bytes: [UInt8]
            do {
                bytes = [UInt8](try Data(contentsOf: file))
            } catch {
                throw LocalMediaError(.notFound, "\(file.path): \(error.localizedDescription)")
            }
            let vtt = file.pathExtension.lowercased() == "vtt" ? try WebVTT(vtt: bytes) : try WebVTT(srt: bytes)
            self.report("subtitles: \(file.lastPathComponent), \(vtt.cueCount) cues")
            let name = file.deletingPathExtension().lastPathComponent + ".vtt"
            return try server.serve(Array(vtt.text.utf8), named: name, contentType: "text/vtt;charset=utf-8")
                .absoluteString
        }
    }
}
