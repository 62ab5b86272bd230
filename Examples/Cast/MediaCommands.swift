import ArgumentParser
import CastKit

/// `cast play URL`: loads media into the Default Media Receiver.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a media URL on the Default Media Receiver.")

    @Argument(help: "The media URL.") var url: String
    @Option(help: "The MIME type; guessed from the URL's extension when left out.") var contentType: String?
    @Option(help: "The title shown on the TV.") var title: String?
    @Option(help: "The subtitle shown on the TV.") var subtitle: String?
    @Option(help: "An image URL shown with the media.") var image: String?
    @Option(help: "Where to start, in seconds (default: the beginning, or the live edge of a live stream).")
    var start: Double?
    @Option(help: "A WebVTT subtitles URL, shown at once.") var subtitles: String?
    @Option(help: "The subtitles' language (BCP 47).") var subtitlesLanguage = "en"
    @Flag(help: "A live stream.") var live = false
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard self.contentType != nil || MediaType.guess(from: self.url) != nil else {
            throw ValidationError("cannot guess the content type of \(self.url); give --content-type")
        }
    }

    func run() async throws {
        try await self.reportingFailures {
            let type = self.contentType ?? MediaType.guess(from: self.url) ?? "video/mp4"
            var metadata = MediaMetadata(type: .generic, images: self.image.map { [MediaImage(url: $0)] } ?? [])
            if let title { metadata.setString(title, forKey: .title) }
            if let subtitle { metadata.setString(subtitle, forKey: .subtitle) }
            let tracks = self.subtitles.map { url in
                [
                    MediaTrack(
                        trackID: 1, kind: .text, subtype: .subtitles, contentID: url, contentType: "text/vtt",
                        language: self.subtitlesLanguage, name: "Subtitles")
                ]
            }
            let information = MediaInformation(
                contentID: self.url, streamType: self.live ? .live : .buffered, contentType: type, metadata: metadata,
                tracks: tracks)
            let status = try await MediaControl.run(self.options) { media in
                try await media.load(
                    MediaLoadRequestData(
                        mediaInformation: information, currentTime: self.start,
                        activeTrackIDs: tracks == nil ? nil : [1]))
            }
            try Output.result(json: status?.json ?? .null, text: status?.text ?? "loaded", asJSON: self.options.json)
        }
    }
}

/// `cast pause`.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause the media.")
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.pause() }
    }
}

/// `cast resume`.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume the media.")
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.play() }
    }
}

/// `cast stop`.
struct StopMediaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the media.")
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.stop() }
    }
}

/// `cast seek SECONDS`.
struct SeekCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "seek", abstract: "Seek to a position, in seconds.")
    @Argument(help: "The position, in seconds.") var position: Double
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) {
            try await $0.seek(MediaSeekOptions(interval: self.position))
        }
    }
}

/// `cast queue URL…`: loads a queue into the Default Media Receiver.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Play several media URLs as a queue.")

    @Argument(help: "The media URLs, in order.") var urls: [String]
    @Option(help: "off, all, single or shuffle.") var repeatMode = "off"
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard !self.urls.isEmpty else { throw ValidationError("give at least one URL") }
        guard Self.repeatModes[self.repeatMode] != nil else {
            throw ValidationError("--repeat-mode must be off, all, single or shuffle")
        }
        for url in self.urls where MediaType.guess(from: url) == nil {
            throw ValidationError("cannot guess the content type of \(url)")
        }
    }

    static let repeatModes: [String: RepeatMode] = [
        "off": .off, "all": .all, "single": .single, "shuffle": .allAndShuffle,
    ]

    func run() async throws {
        let items = self.urls.map { url in
            MediaQueueItem(
                media: MediaInformation(contentID: url, contentType: MediaType.guess(from: url) ?? "video/mp4"))
        }
        try await MediaControl.perform(self, self.options) { media in
            try await media.queueLoad(items: items, repeatMode: Self.repeatModes[self.repeatMode] ?? .off)
        }
    }
}

/// `cast next`.
struct NextCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "next", abstract: "Skip to the next queue item.")
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.queueNext() }
    }
}

/// `cast prev`.
struct PreviousCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prev", abstract: "Go back to the previous queue item.")
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.queuePrevious() }
    }
}

/// `cast rate RATE`.
struct RateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rate", abstract: "Set the playback rate (0.5 to 2).")
    @Argument(help: "The rate, 0.5 to 2.") var rate: Double
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard (0.5...2).contains(self.rate) else { throw ValidationError("the rate must be between 0.5 and 2") }
    }

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.setPlaybackRate(self.rate) }
    }
}

/// `cast tracks ID…`: the active tracks (none turns subtitles off).
struct TracksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracks", abstract: "Set the active track ids (none: subtitles off).")
    @Argument(help: "The track ids.") var trackIDs: [Int] = []
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await MediaControl.perform(self, self.options) { try await $0.setActiveTrackIDs(self.trackIDs) }
    }
}

/// `cast style`: the subtitles' look.
struct StyleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "style", abstract: "Style the subtitles.")
    @Option(help: "Text colour, #RRGGBB or #RRGGBBAA.") var foreground: String?
    @Option(help: "Background colour, #RRGGBB or #RRGGBBAA.") var background: String?
    @Option(help: "Font scale, 1 is normal.") var scale: Double?
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        for colour in [self.foreground, self.background].compactMap({ $0 }) where CastColor(cssString: colour) == nil {
            throw ValidationError("\(colour) is not #RRGGBB or #RRGGBBAA")
        }
    }

    func run() async throws {
        var style = TextTrackStyle()
        style.foregroundColor = self.foreground.flatMap(CastColor.init(cssString:))
        style.backgroundColor = self.background.flatMap(CastColor.init(cssString:))
        style.fontScale = self.scale
        try await MediaControl.perform(self, self.options) { try await $0.setTextTrackStyle(style) }
    }
}

/// The media commands' shared steps: connect, join the app that plays media, run one request.
enum MediaControl {
    /// Joins the running media app (launching the Default Media Receiver
    /// when none runs) and runs `request` with its media client.
    static func run(
        _ options: DeviceOptions, _ request: (RemoteMediaClient) async throws -> MediaStatus?
    ) async throws -> MediaStatus? {
        try await ReceiverLink.with(options) { link in
            let media = RemoteMediaClient(requestTimeout: options.timeoutDuration)
            let status = try await link.receiver.requestStatus()
            let playing = status.applications.first { $0.namespaces.contains(CastNamespace.media) }
            if let playing {
                try await link.join(playing, attaching: [media])  // media asks for its status on connecting
            } else {
                _ = try await link.application(CastApplicationID.defaultMediaReceiver, attaching: [media])
            }
            let result = try await request(media)
            media.detach()
            return result
        }
    }

    /// Runs `request` for `command` and prints the media status it returns.
    static func perform(
        _ command: some AsyncParsableCommand, _ options: DeviceOptions,
        _ request: @escaping (RemoteMediaClient) async throws -> MediaStatus?
    ) async throws {
        try await command.reportingFailures {
            let status = try await Self.run(options, request)
            try Output.result(json: status?.json ?? .null, text: status?.text ?? "done", asJSON: options.json)
        }
    }
}

/// Content types by file extension, for `cast play` without `--content-type`.
enum MediaType {
    static let byExtension = [
        "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm", "mkv": "video/x-matroska",
        "m3u8": "application/x-mpegURL", "mpd": "application/dash+xml", "mp3": "audio/mpeg",
        "m4a": "audio/mp4", "aac": "audio/aac", "ogg": "audio/ogg", "flac": "audio/flac", "wav": "audio/wav",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
    ]

    /// The type for `url`'s extension (query and fragment ignored), or `nil`.
    static func guess(from url: String) -> String? {
        let path = url.split(separator: "?", maxSplits: 1).first?.split(separator: "#").first ?? ""
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return Self.byExtension[path[path.index(after: dot)...].lowercased()]
    }
}
