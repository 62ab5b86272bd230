import ArgumentParser
import CastKit
import CastMediaServer

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
        for url in self.urls where MediaContentType.guess(from: url) == nil {
            throw ValidationError("cannot guess the content type of \(url)")
        }
    }

    static let repeatModes: [String: RepeatMode] = [
        "off": .off, "all": .all, "single": .single, "shuffle": .allAndShuffle,
    ]

    func run() async throws {
        let items = self.urls.map { url in
            MediaQueueItem(
                media: MediaInformation(contentID: url, contentType: MediaContentType.guess(from: url) ?? "video/mp4"))
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
        commandName: "tracks",
        abstract:
            "Set the active track ids: subtitles, and the sound of a converted film with several (none: all off).",
        discussion: "`cast play` prints each track's id and whether it is on; give every track to keep on.")
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
            let media = try await link.link.mediaClient(requestTimeout: options.timeoutDuration)
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
