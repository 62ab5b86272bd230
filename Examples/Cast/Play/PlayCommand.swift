import ArgumentParser
import CastKit
import CastLocalMedia
import CastMediaServer
import CastTransport
import Foundation

/// `cast play URL|FILE|FOLDER|PLAYLIST…`: plays on the Default Media
/// Receiver. Local files are served from this machine (CastMediaServer)
/// with their subtitles — converted by ffmpeg when the device cannot play
/// them (``LocalMedia``); several items become one queue. With local files
/// (or `--wait`) it stays until playback ends, showing progress; Ctrl-C
/// stops the media.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract:
            "Play media URLs, local files, folders or playlists (.m3u, .m3u8, .pls) on the Default Media Receiver.")

    @Argument(help: "URLs, files, folders or playlists, in order.") var items: [String]
    @Option(help: "The MIME type; guessed from the extension when left out (one item only).") var contentType: String?
    @Option(help: "The title shown on the TV (one item only; default: the file name).") var title: String?
    @Option(help: "The subtitle shown on the TV.") var subtitle: String?
    @Option(help: "An image URL shown with the media.") var image: String?
    @Option(
        help: """
            Where to start, in seconds (default: where a local file was last stopped, else the beginning, or the \
            live edge of a live stream).
            """)
    var start: Double?
    @Option(
        help: """
            Subtitles for the first item: a WebVTT URL or a local .srt or .vtt file, or among the file's own a \
            language (fr, deu) or a track number, or off (default: a file beside it, else the file's default track).
            """)
    var subtitles: String?
    @Option(help: "The subtitles' language (BCP 47).") var subtitlesLanguage = "en"
    @Option(help: "The first item's sound, among a local file's audio streams: a language (de, ger) or a number.")
    var audio: String?
    @Option(
        help: ArgumentHelp(
            "Draw the first item's Nth subtitle stream into the picture: for picture subtitles (PGS, DVD), which "
                + "TVs do not show as text. The video is then converted.", valueName: "N"))
    var burnSubtitles: Int?
    @Flag(help: "A live stream.") var live = false
    @Option(help: "With several items: off, all, single or shuffle.") var repeatMode = "off"
    @Flag(help: "Play the items in random order.") var shuffle = false
    @Flag(help: "Stay until playback ends also when only URLs play (always with local files).") var wait = false
    @Flag(help: "While it stays, let the desktop's media keys and controls (MPRIS) control playback.")
    var mpris = false
    @Option(help: "The port local files are served on (default: any free one).") var serverPort = 0
    @Option(
        help: ArgumentHelp(
            "The local address local files are served from (default: the one on the route toward the device).",
            valueName: "address"))
    var serveAddress: String?
    @Option(help: .hidden) var bufferingTimeout: Double = 20
    @Option(
        help: """
            Converting local files with ffmpeg: auto (what the device cannot play), always (everything, into MP4), \
            or never (refuse what it cannot play).
            """)
    var convert: ConvertOption = .auto
    @Option(
        help: """
            The device's model, for what it plays ("Chromecast Ultra", "Google TV Streamer"…; default: the one \
            discovery reports, else the oldest Chromecast's limits).
            """)
    var deviceModel: String?
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard !self.items.isEmpty else { throw ValidationError("give at least one URL, file, folder or playlist") }
        guard QueueCommand.repeatModes[self.repeatMode] != nil else {
            throw ValidationError("--repeat-mode must be off, all, single or shuffle")
        }
        guard (0...65_535).contains(self.serverPort) else { throw ValidationError("--server-port is 0…65535") }
        if let address = self.serveAddress, IPAddress(address) == nil {
            throw ValidationError("--serve-address takes an IP address of this machine, not \(address)")
        }
        guard self.bufferingTimeout > 0 else { throw ValidationError("--buffering-timeout must be positive") }
    }

    func run() async throws {
        try await self.reportingFailures {
            let items = try self.resolvedItems()
            let served = items.contains { if case .file = $0.source { true } else { $0.subtitles.isLocal } }
            // One local file resumes where it was last stopped, unless --start says where.
            let resuming = Self.resumable(items)
            let start = self.startPosition(resuming: resuming)
            // Ctrl-C is caught only when the command stays to follow playback.
            let interrupted = served || self.wait || self.mpris ? Interruption.install() : nil
            try await ReceiverLink.with(self.options) { link in
                try await self.play(
                    items, on: link, serving: served, start: start, resuming: resuming, interrupted: interrupted)
            }
        }
    }

    /// The items to play, in order: resolved from the arguments, the first with the subtitles
    /// `--subtitles` names, shuffled with `--shuffle`. Throws when a web page needs yt-dlp and it is missing.
    private func resolvedItems() throws -> [PlayItem] {
        var items = try PlayItem.resolve(self.items)
        if case .source(let subtitles)? = self.subtitles.map(SubtitleChoice.init), !items.isEmpty {
            items[0].subtitles =
                subtitles.contains("://") ? .url(subtitles) : .file(URL(fileURLWithPath: subtitles))
        }
        if self.shuffle { items.shuffle() }
        if self.contentType == nil, MediaTools.installed().ytDlp == nil,
            let page = items.lazy.compactMap(\.webPage).first
        {
            throw ValidationError(
                "cannot tell what kind of media \(page) is: give --content-type, or install yt-dlp "
                    + "(pip install yt-dlp) to play the video on a web page")
        }
        return items
    }

    /// Where to start: `--start`, else where the one local file was last stopped (said so), else `nil`.
    private func startPosition(resuming: (URL, ResumePositions)?) -> Double? {
        var start = self.start
        if start == nil, let (file, positions) = resuming, let position = positions.position(for: file) {
            start = position
            Output.progress(
                "resuming at \(PlaybackWatch.clock(position)), where it was stopped (--start 0 plays it from the beginning)"
            )
        }
        return start
    }

    /// Plays `items` on the media app `link` reaches, serving local files from this machine when
    /// `served`; follows playback when `interrupted` is set, else prints the status once loaded.
    private func play(
        _ items: [PlayItem], on link: ReceiverLink, serving served: Bool, start: Double?,
        resuming: (URL, ResumePositions)?, interrupted: Interruption?
    ) async throws {
        let media = try await MediaControl.join(link, timeout: self.options.timeoutDuration)
        let server =
            served
            ? try await MediaServer.start(
                toward: link.host,
                configuration: MediaServerConfiguration(host: self.serveAddress, port: self.serverPort),
                logger: link.logger)
            : nil
        if let server { Output.progress("serving local files from \(server.baseURL.absoluteString)") }
        let local = server.map {
            LocalMedia(
                server: $0, tools: .installed(),
                device: .forModel(self.deviceModel ?? link.modelName), mode: self.convert.mode,
                report: { Output.progress($0) })
        }
        do {
            let loaded = try await self.load(items, into: media, local: local, start: start)
            let (status, converted) = (loaded.status, loaded.converting)
            if let interrupted {
                try await self.follow(
                    media, server: server, converting: converted, itemCount: items.count, interrupted: interrupted,
                    resuming: resuming)
            } else {
                try Output.result(
                    json: status?.json ?? .null, text: status?.text ?? "loaded", asJSON: self.options.json)
            }
        } catch {
            await server?.stop()
            throw Self.explained(error, server: server)
        }
        await server?.stop()
        media.detach()
    }

    /// Loads `items` into `media`, local ones through `local`; a ``LocalMediaError`` becomes a
    /// bad-input failure worded with this command's options.
    private func load(
        _ items: [PlayItem], into media: RemoteMediaClient, local: LocalMedia?, start: Double?
    ) async throws -> LocalMediaLoader.Loaded {
        do {
            return try await LocalMediaLoader(local: local) { Output.progress($0) }
                .load(items, into: media, options: self.loadOptions(start: start))
        } catch let error as LocalMediaError {
            throw CommandFailure(.badInput, self.sentence(for: error))
        }
    }

    /// Shows playback's progress until it ends or Ctrl-C, with the desktop's controls under `--mpris`,
    /// then keeps where the resumable file stopped.
    private func follow(
        _ media: RemoteMediaClient, server: MediaServer?, converting converted: [URL], itemCount: Int,
        interrupted: Interruption, resuming: (URL, ResumePositions)?
    ) async throws {
        let desktop = self.mpris ? DesktopControls(client: media) : nil
        defer { desktop?.close() }
        let timeout = Duration.milliseconds(Int(self.bufferingTimeout * 1_000))
        let watch = PlaybackWatch(
            media: media, server: server, converting: converted, itemCount: itemCount, bufferingTimeout: timeout)
        let end = try await PlaybackLines(
            watch: watch, interrupted: interrupted, json: self.options.json, bufferingTimeout: timeout,
            servesFiles: server != nil, itemCount: itemCount
        ).follow()
        if let (file, positions) = resuming { Self.remember(end, of: file, in: positions) }
    }

    /// The loader's options from the command's.
    private func loadOptions(start: Double?) -> LocalMediaLoader.Options {
        var options = LocalMediaLoader.Options()
        options.start = start
        options.contentType = self.contentType
        options.title = self.title
        options.subtitle = self.subtitle
        options.imageURL = self.image
        options.subtitles = self.subtitles.map(SubtitleChoice.init)
        options.subtitlesLanguage = self.subtitlesLanguage
        options.audio = self.audio.map(AudioChoice.init)
        options.burnSubtitles = self.burnSubtitles
        options.isLive = self.live
        options.repeatMode = QueueCommand.repeatModes[self.repeatMode] ?? .off
        return options
    }

    /// The one local file played, and where the positions of stopped files are kept; `nil` for
    /// URLs and for several items (a queue resumes nowhere in particular).
    private static func resumable(_ items: [PlayItem]) -> (URL, ResumePositions)? {
        guard items.count == 1, case .file(let file) = items[0].source else { return nil }
        return (file, ResumePositions(fileURL: XDGDirectory.state.file("resume.json", application: "cast")))
    }

    /// Keeps where `file` stopped (or forgets it, played to the end); a failure to write is said, not fatal.
    private static func remember(_ end: PlaybackWatch.End, of file: URL, in positions: ResumePositions) {
        do {
            if end.outcome == .finished {
                try positions.forget(file)
            } else if let position = end.position {
                try positions.remember(position, duration: end.duration, for: file)
            }
        } catch {
            Output.progress("cannot keep where \(file.lastPathComponent) stopped: \(error.localizedDescription)")
        }
    }

    /// `error` in the words of this command's options.
    private func sentence(for error: LocalMediaError) -> String {
        switch error.code {
        case .subtitleStreamNotFound: "--burn-subtitles \(self.burnSubtitles ?? 0): \(error.message)"
        case .audioStreamNotFound: "--audio \(self.audio ?? ""): \(error.message)"
        case .conversionOff: "\(error.message), and --convert never was given"
        case .unknownType: "\(error.message); if it is media itself, give --content-type"
        case .subtitleTrackNotFound: "--subtitles \(self.subtitles ?? ""): \(error.message)"
        default: error.message
        }
    }

    /// A failed load explained: when the receiver never asked the server
    /// for anything, the likely cause is that it cannot reach this machine.
    private static func explained(_ error: any Error, server: MediaServer?) -> any Error {
        guard let error = error as? CastMediaError, error.code == .loadFailed, let server,
            server.recentRequests.isEmpty
        else { return error }
        return CommandFailure(
            .mediaFailed,
            "\(error); the receiver never fetched anything from \(server.baseURL.absoluteString): "
                + "can it reach this machine (a firewall, another network)?")
    }
}

extension PlayItem {
    /// The URL, when it names no media type by its name: a web page, for yt-dlp.
    fileprivate var webPage: String? {
        guard case .url(let url) = self.source, MediaContentType.guess(from: url) == nil else { return nil }
        return url
    }
}

extension Optional where Wrapped == PlayItem.Source {
    /// Whether these are local subtitles, which need the server.
    fileprivate var isLocal: Bool {
        if case .file = self { true } else { false }
    }
}

/// `--convert`: ``LocalMedia/ConvertMode`` as the command line spells it.
enum ConvertOption: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    var mode: LocalMedia.ConvertMode {
        switch self {
        case .auto: .auto
        case .always: .always
        case .never: .never
        }
    }
}
