public import CastMediaServer
public import Foundation

/// How one local file is served to a device: as it is when the device
/// plays it, converted by ffmpeg when not (`ConversionPlan`; HLS segments
/// made as they are asked for where the video goes out as H.264), refused
/// with the reason named when it cannot be converted. With ffprobe it reads
/// the file's codecs, tags and subtitle streams; without, it judges by the
/// extension. Each decision is reported as one line for people (``report``).
public struct LocalMedia: Sendable {
    /// When to convert.
    public enum ConvertMode: String, Sendable, Hashable, CaseIterable {
        /// Convert what the device cannot play.
        case auto
        /// Always convert into fragmented MP4 (when the table is wrong for a TV).
        case always
        /// Never convert: refuse what the device cannot play.
        case never
    }

    /// What the receiver is told.
    public struct Served: Sendable, Hashable {
        /// Where the receiver fetches it.
        public var url: URL
        /// Its MIME type.
        public var contentType: String
        /// The title the file's tags carry, when ffprobe read them.
        public var title: String?
        /// The artist the file's tags carry.
        public var artist: String?
        /// The album the file's tags carry.
        public var album: String?
        /// How long it plays, in seconds, when ffprobe said.
        public var duration: Double?
        /// Whether ffmpeg converts it.
        public var isConverted: Bool
        /// Whether it is served as HLS, segments made on demand.
        public var isSegmented = false
        /// Whether those segments are fragmented MP4 (a copied HEVC video), not MPEG-TS.
        public var segmentsAreFragmentedMP4 = false
        /// The file's own text subtitles, as WebVTT served beside it.
        public var textTracks: [TextTrack] = []
        /// The film's sounds, when it has several and is served as HLS:
        /// each an audio rendition the receiver switches to while playing.
        public var soundTracks: [SoundTrack] = []
        /// A picture of it (a web page's thumbnail).
        public var imageURL: URL?
        /// Whether it is a live stream (a web page's live video).
        public var isLive = false

        /// Creates a description of what is served.
        public init(url: URL, contentType: String, isConverted: Bool) {
            self.url = url
            self.contentType = contentType
            self.isConverted = isConverted
        }

        /// One of the file's subtitle streams, served as WebVTT.
        public struct TextTrack: Sendable, Hashable {
            /// Where the receiver fetches it.
            public var url: URL
            /// BCP 47, when the file tags it.
            public var language: String?
            /// The name shown.
            public var name: String
            /// Whether the file marks it as the default.
            public var isDefault: Bool
        }

        /// One of the film's sounds, served as an HLS audio rendition.
        public struct SoundTrack: Sendable, Hashable {
            /// The rendition's media playlist.
            public var url: URL
            /// BCP 47, when the file tags it.
            public var language: String?
            /// The name shown.
            public var name: String
            /// Whether it plays unless another is chosen (the one `--audio` picked, else the file's default).
            public var isDefault: Bool
        }
    }

    /// The server files are served through.
    public let server: MediaServer
    /// ffprobe and ffmpeg, where installed.
    public let tools: MediaTools
    /// What the device plays.
    public let device: CastMediaSupport
    /// When to convert.
    public let mode: ConvertMode
    /// Told each decision, one line for people ("converting film.mkv: …").
    public let report: @Sendable (String) -> Void

    /// Serves files through `server` for a device that plays what `device` says.
    public init(
        server: MediaServer, tools: MediaTools, device: CastMediaSupport, mode: ConvertMode = .auto,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.server = server
        self.tools = tools
        self.device = device
        self.mode = mode
        self.report = report
    }

    /// Serves `file`; `contentType` overrides the guess and the check;
    /// `audio` picks among its sound streams (read with ffprobe);
    /// `burningSubtitles` (1 for the first) draws a subtitle stream into the picture;
    /// `start` (seconds), where the receiver will begin, lets a film served
    /// as HLS segments begin converting there at once.
    ///
    /// - Throws: ``LocalMediaError`` naming why it cannot be played; what
    ///   `MediaServer` throws when it cannot serve it.
    public func serve(
        _ file: URL, contentType: String?, audio: AudioChoice? = nil, burningSubtitles: Int? = nil,
        startingAt start: Double? = nil
    ) async throws -> Served {
        let name = file.lastPathComponent
        if let contentType {
            return Served(
                url: try self.server.serve(file: file, contentType: contentType), contentType: contentType,
                isConverted: false)
        }
        guard self.tools.ffprobe != nil else {
            if burningSubtitles != nil {
                throw LocalMediaError(
                    .toolsMissing, "burning subtitles in needs ffprobe and ffmpeg (e.g. apt install ffmpeg)")
            }
            return try self.serveByExtension(file, unreadable: nil)
        }
        let media: ProbedMedia
        do {
            media = try await self.tools.probe(file)
        } catch {
            // Unreadable to ffprobe (damaged, or a format it does not know): the receiver may still try.
            self.report("\(name): \(error.message); judging it by its extension")
            return try self.serveByExtension(file, unreadable: error)
        }
        let plan = try self.conversionPlan(for: media, name: name, audio: audio, burningSubtitles: burningSubtitles)
        var served = Served(url: file, contentType: plan.contentType(ofOriginal: name), isConverted: plan.isNeeded)
        served.title = media.title
        served.artist = media.artist
        served.album = media.album
        served.duration = media.duration.map { $0 / .seconds(1) }
        served.textTracks = await self.textTracks(of: media, in: file)
        guard plan.isNeeded else {
            served.url = try self.server.serve(file: file, contentType: served.contentType)
            return served
        }
        return try await self.serveConverted(
            .file(file), name: name, media: media, plan: plan, served: served, start: start)
    }

    /// Serves `format` of the web video `video` through this machine's
    /// server: converted as the device needs — ffmpeg fetching it with the
    /// headers its site asks for — or, with `relaying` and a format the
    /// device plays, copied into MP4 as it is, for a site whose URL only
    /// answers with its headers (a cookie), which the TV would not send.
    ///
    /// - Throws: ``LocalMediaError`` `unplayable` when ffprobe cannot read
    ///   it, `toolsMissing` without ffprobe or ffmpeg, `conversionOff`;
    ///   what `MediaServer` throws when it cannot serve it.
    public func serve(
        web format: WebVideo.Format, of video: WebVideo, relaying: Bool = false, startingAt start: Double? = nil
    )
        async throws -> Served
    {
        let input = MediaInput.web(format.url, headers: format.httpHeaders)
        let name = video.title ?? input.name
        guard self.tools.ffprobe != nil else {
            throw LocalMediaError(
                .toolsMissing, "converting \(name) needs ffprobe and ffmpeg (e.g. apt install ffmpeg)")
        }
        let media: ProbedMedia
        do {
            media = try await self.tools.probe(input)
        } catch {
            throw LocalMediaError(.unplayable, "\(name) (\(format.url.absoluteString)): \(error.message)")
        }
        var plan = try self.conversionPlan(for: media, name: input.name, audio: nil, burningSubtitles: nil)
        if relaying { plan.remuxes = true }
        var served = Served(url: format.url, contentType: plan.contentType(ofOriginal: input.name), isConverted: true)
        served.title = video.title ?? media.title
        served.duration = video.duration ?? media.duration.map { $0 / .seconds(1) }
        served.imageURL = video.thumbnailURL
        served.isLive = video.isLive
        guard plan.isNeeded else {
            // ffprobe says the device plays it as it is, though the site's description did not: the TV fetches it.
            served.isConverted = false
            return served
        }
        return try await self.serveConverted(input, name: name, media: media, plan: plan, served: served, start: start)
    }

    /// The conversion plan for `media`, named `name`, with the audio and
    /// subtitle streams asked for (each reported); forced to remux in ``ConvertMode/always``.
    private func conversionPlan(
        for media: ProbedMedia, name: String, audio: AudioChoice?, burningSubtitles: Int?
    ) throws -> ConversionPlan {
        let audioStream = try audio.map { try self.audioStream($0, of: media, name: name) }
        let burned = try burningSubtitles.map { try self.subtitleStream($0, of: media, name: name) }
        var plan: ConversionPlan
        do {
            plan = try ConversionPlan(
                media: media, fileName: name, device: self.device, audioStream: audioStream, burningSubtitles: burned)
        } catch {
            throw LocalMediaError(.cannotConvert, error.message)
        }
        if self.mode == .always { plan.remuxes = true }
        return plan
    }

    /// Serves `file` converted as `plan` says — as HLS segments when it can, else as
    /// fragmented MP4 — after reporting why; refused when converting is off or ffmpeg is missing.
    private func serveConverted(
        _ input: MediaInput, name: String, media: ProbedMedia, plan: ConversionPlan, served: Served, start: Double?
    ) async throws -> Served {
        var served = served
        let cannot = plan.reasons.isEmpty ? nil : "a \(self.device.name) cannot play \(Self.list(plan.reasons))"
        guard self.mode != .never else {
            throw LocalMediaError(.conversionOff, "\(name): \(cannot ?? "it needs converting")")
        }
        guard let ffmpeg = self.tools.ffmpeg else {
            throw LocalMediaError(
                .toolsMissing,
                "\(name): \(cannot ?? "it needs converting"); install ffmpeg to convert it (e.g. apt install ffmpeg)")
        }
        // A film whose video goes out as H.264 is served as HLS, every segment listed from the
        // start: the TV shows its length and seeks anywhere while ffmpeg is still near the start.
        if plan.isSegmentable, media.duration != nil {
            let sounds = plan.soundRenditions.count
            let into =
                "HLS segments made as they are asked for"
                + (sounds > 1 ? ", each of its \(sounds) sounds a rendition the TV switches to (cast tracks)" : "")
            self.report("converting \(name)\(cannot.map { ": \($0)" } ?? ""); \(Self.describe(plan, into: into))")
            served.url = try await self.server.serve(
                input: input, segmenting: plan, media: media, tools: self.tools, startingAt: start)
            served.contentType = "application/vnd.apple.mpegurl"
            served.isSegmented = true
            served.segmentsAreFragmentedMP4 = plan.segmentsAreFragmentedMP4
            served.soundTracks = zip(plan.soundRenditions, self.server.soundRenditions(of: served.url)).enumerated()
                .map { offset, rendition in
                    let (sound, url) = rendition
                    return Served.SoundTrack(
                        url: url, language: sound.stream.language.map(MediaLanguage.bcp47),
                        name: sound.stream.name(number: offset + 1),
                        isDefault: sound.stream.index == plan.audio?.stream.index)
                }
            return served
        }
        self.report("converting \(name)\(cannot.map { ": \($0)" } ?? ""); \(Self.describe(plan, into: "MP4"))")
        served.url = try self.server.serve(input: input, converting: plan, with: ffmpeg)
        return served
    }

    /// The index of the `number`th subtitle stream of `media` (1 for the first), reported.
    private func subtitleStream(_ number: Int, of media: ProbedMedia, name: String) throws -> Int {
        let streams = media.streams.filter { $0.kind == .subtitle }
        guard number >= 1, number <= streams.count else {
            throw LocalMediaError(.subtitleStreamNotFound, "\(name) has \(streams.count) subtitle streams")
        }
        let stream = streams[number - 1]
        let language = stream.language.map(MediaLanguage.bcp47)
        self.report(
            "burning subtitle stream \(number) (\(stream.codec)\(language.map { ", \($0)" } ?? "")) into the picture")
        return stream.index
    }

    /// The index of the audio stream `choice` names in `media`, reported.
    private func audioStream(_ choice: AudioChoice, of media: ProbedMedia, name: String) throws -> Int {
        let streams = media.streams.filter { $0.kind == .audio }
        let stream: ProbedMedia.Stream
        switch choice {
        case .number(let number):
            guard number <= streams.count else {
                throw LocalMediaError(.audioStreamNotFound, "\(name) has \(streams.count) audio streams")
            }
            stream = streams[number - 1]
        case .language(let language):
            guard let found = streams.first(where: { MediaLanguage.matches($0.language, language) }) else {
                let known = streams.compactMap { $0.language.map(MediaLanguage.bcp47) }
                throw LocalMediaError(
                    .audioStreamNotFound,
                    "\(name) has no sound in that language"
                        + (known.isEmpty ? "" : " (there are: \(known.joined(separator: ", ")))"))
            }
            stream = found
        }
        let language = stream.language.map(MediaLanguage.bcp47)
        self.report(
            "audio: \(stream.title ?? language ?? "stream \(stream.index)")\(stream.title != nil ? language.map { " (\($0))" } ?? "" : "")"
        )
        return stream.index
    }

    /// The file's text subtitle streams, each made WebVTT by ffmpeg and
    /// served; picture subtitles (PGS, DVD) are named and left out.
    private func textTracks(of media: ProbedMedia, in file: URL) async -> [Served.TextTrack] {
        var tracks: [Served.TextTrack] = []
        let base = file.deletingPathExtension().lastPathComponent
        for stream in media.streams where stream.kind == .subtitle {
            guard stream.isTextSubtitle else {
                self.report(
                    "\(file.lastPathComponent): subtitle stream \(stream.index) is pictures (\(stream.codec)); not shown"
                )
                continue
            }
            do {
                let vtt = try await self.tools.subtitles(of: file, stream: stream.index)
                let language = stream.language.map(MediaLanguage.bcp47)
                let name = stream.title ?? language ?? "Subtitles \(tracks.count + 1)"
                let url = try self.server.serve(
                    Array(vtt.text.utf8), named: "\(base).\(stream.index).vtt", contentType: "text/vtt;charset=utf-8")
                self.report(
                    "subtitles in the file: \(name)\(language.map { " (\($0))" } ?? ""), \(vtt.cueCount) cues")
                tracks.append(
                    Served.TextTrack(url: url, language: language, name: name, isDefault: stream.isDefault))
            } catch {
                self.report("\(file.lastPathComponent): subtitle stream \(stream.index) left out: \(error.message)")
            }
        }
        return tracks
    }

    /// "A", "A or B", "A, B or C".
    private static func list(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + last
    }

    /// What ffmpeg does, for people: "video copied, audio to AAC, into MP4".
    private static func describe(_ plan: ConversionPlan, into container: String) -> String {
        var parts: [String] = []
        if let video = plan.video { parts.append(video.transcodes ? "video to H.264" : "video copied") }
        if let audio = plan.audio { parts.append(audio.transcodes ? "audio to AAC" : "audio copied") }
        return parts.joined(separator: ", ") + ", into " + container
    }

    /// Without ffprobe, or when it cannot read the file (`unreadable`): the extension decides.
    private func serveByExtension(_ file: URL, unreadable: MediaServerError?) throws -> Served {
        guard let type = MediaContentType.guess(from: file.path) else {
            throw LocalMediaError(
                .unknownType, "\(file.path): cannot tell its type from the extension")
        }
        guard MediaContentType.playableByCast.contains(type) else {
            throw LocalMediaError(
                .unplayable,
                "\(file.lastPathComponent) is \(type), a container Cast devices do not play "
                    + "(developers.google.com/cast/docs/media)"
                    + (unreadable == nil
                        ? "; install ffmpeg to convert it" : ", and ffprobe cannot read it to convert it"))
        }
        return Served(url: try self.server.serve(file: file, contentType: type), contentType: type, isConverted: false)
    }
}
