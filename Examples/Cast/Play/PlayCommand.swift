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
            """,
        transform: {
            guard let mode = LocalMedia.ConvertMode(rawValue: $0) else {
                throw ValidationError("--convert takes auto, always or never")
            }
            return mode
        })
    var convert: LocalMedia.ConvertMode = .auto
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
            // Ctrl-C is caught where the command may stay to follow playback: with local files or web
            // pages (served from this machine when converted), --wait, --mpris.
            let mayFollow = self.wait || self.mpris || items.contains { $0.isLocal || $0.webPage != nil }
            let interrupted = mayFollow ? Interruption.install() : nil
            try await ReceiverLink.with(self.options) { link in
                let media = try await link.link.mediaClient(requestTimeout: self.options.timeoutDuration)
                let playback = try await self.start(items, on: media, link: link)
                do {
                    // It stays while this machine serves what plays, or when asked to.
                    if let interrupted, self.wait || self.mpris || playback.server != nil {
                        try await self.follow(playback, itemCount: items.count, interrupted: interrupted)
                    } else {
                        let status = playback.status
                        try Output.result(
                            json: status?.json ?? .null, text: status?.text ?? "loaded", asJSON: self.options.json)
                    }
                } catch {
                    await playback.close()
                    throw error
                }
                await playback.close()
                media.detach()
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

    /// The SDK's playback of `items` through `media`, with this command's options; a
    /// ``LocalMediaError`` about the items is worded with them.
    private func start(_ items: [PlayItem], on media: RemoteMediaClient, link: ReceiverLink) async throws
        -> LocalMediaPlayback
    {
        var configuration = LocalMediaPlayback.Configuration()
        configuration.load = self.loadOptions()
        configuration.server = MediaServerConfiguration(host: self.serveAddress, port: self.serverPort)
        configuration.convert = self.convert
        configuration.deviceModel = self.deviceModel ?? link.modelName
        configuration.bufferingTimeout = .milliseconds(Int(self.bufferingTimeout * 1_000))
        configuration.resumePositions = ResumePositions(
            fileURL: XDGDirectory.state.file("resume.json", application: "cast"))
        do {
            let playback = try await LocalMediaPlayback.start(
                items, on: media, toward: link.host, configuration: configuration, logger: link.logger
            ) { Output.progress($0) }
            if let position = playback.resumedPosition {
                Output.progress(
                    "resuming at \(PlaybackWatch.clock(position)), where it was stopped (--start 0 plays it from "
                        + "the beginning)")
            }
            return playback
        } catch let error as LocalMediaError where error.code != .unreachable {
            throw CommandFailure(.invalidInput, self.sentence(for: error))
        }
    }

    /// Shows playback's progress until it ends or Ctrl-C, with the desktop's controls under `--mpris`.
    private func follow(_ playback: LocalMediaPlayback, itemCount: Int, interrupted: Interruption) async throws {
        let desktop = self.mpris ? DesktopControls(client: playback.media) : nil
        defer { desktop?.close() }
        _ = try await PlaybackLines(
            playback: playback, interrupted: interrupted, json: self.options.json,
            bufferingTimeout: .milliseconds(Int(self.bufferingTimeout * 1_000)), servesFiles: playback.server != nil,
            itemCount: itemCount
        ).follow()
    }

    /// The loader's options from the command's.
    private func loadOptions() -> LocalMediaLoader.Options {
        var options = LocalMediaLoader.Options()
        options.start = self.start
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
}
