import ArgumentParser
import CastMediaServer
import CastTransport
import Foundation

/// How `cast play` serves one local file: as it is when the device plays
/// it, converted by ffmpeg when not (``ConversionPlan``), refused with the
/// reason named when it cannot be converted. With ffprobe it reads the
/// file's codecs and tags; without, it judges by the extension.
struct LocalMedia {
    /// `--convert`.
    enum ConvertMode: String, ExpressibleByArgument, CaseIterable {
        /// Convert what the device cannot play.
        case auto
        /// Always convert into fragmented MP4 (when the table is wrong for a TV).
        case always
        /// Never convert: refuse what the device cannot play.
        case never
    }

    /// What the receiver is told.
    struct Served {
        var url: URL
        var contentType: String
        /// Tags the file carries, when ffprobe read them.
        var title: String?
        var artist: String?
        var album: String?
        /// How long it plays, when ffprobe said.
        var duration: Double?
        /// Whether ffmpeg converts it.
        var isConverted: Bool
        /// Whether it is served as HLS, MPEG-TS segments made on demand.
        var isSegmented = false
        /// The file's own text subtitles, as WebVTT served beside it.
        var textTracks: [TextTrack] = []

        /// One of the file's subtitle streams, served as WebVTT.
        struct TextTrack {
            var url: URL
            /// BCP 47, when the file tags it.
            var language: String?
            var name: String
            /// Whether the file marks it as the default.
            var isDefault: Bool
        }
    }

    let server: MediaServer
    let tools: MediaTools
    let device: CastMediaSupport
    let mode: ConvertMode

    /// Serves `file`; `contentType` overrides the guess and the check;
    /// `audio` picks among its sound streams (read with ffprobe);
    /// `burningSubtitles` (1 for the first) draws a subtitle stream into the picture.
    func serve(_ file: URL, contentType: String?, audio: AudioChoice? = nil, burningSubtitles: Int? = nil)
        async throws -> Served
    {
        let name = file.lastPathComponent
        if let contentType {
            return Served(
                url: try self.server.serve(file: file, contentType: contentType), contentType: contentType,
                isConverted: false)
        }
        guard self.tools.ffprobe != nil else {
            if burningSubtitles != nil {
                throw CommandFailure(.badInput, "--burn-subtitles needs ffprobe and ffmpeg (e.g. apt install ffmpeg)")
            }
            return try self.serveByExtension(file, unreadable: nil)
        }
        let media: ProbedMedia
        do {
            media = try await self.tools.probe(file)
        } catch {
            // Unreadable to ffprobe (damaged, or a format it does not know): the receiver may still try.
            Output.progress("\(name): \(error.message); judging it by its extension")
            return try self.serveByExtension(file, unreadable: error)
        }
        let audioStream = try audio.map { try Self.audioStream($0, of: media, name: name) }
        let burned = try burningSubtitles.map { try Self.subtitleStream($0, of: media, name: name) }
        var plan: ConversionPlan
        do {
            plan = try ConversionPlan(
                media: media, fileName: name, device: self.device, audioStream: audioStream, burningSubtitles: burned)
        } catch {
            throw CommandFailure(.badInput, error.message)
        }
        if self.mode == .always { plan.remuxes = true }
        var served = Served(
            url: file, contentType: plan.contentType(ofOriginal: name), title: media.title, artist: media.artist,
            album: media.album,
            duration: media.duration.map { Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18 },
            isConverted: plan.isNeeded, textTracks: await self.textTracks(of: media, in: file))
        guard plan.isNeeded else {
            served.url = try self.server.serve(file: file, contentType: served.contentType)
            return served
        }
        let cannot = plan.reasons.isEmpty ? nil : "a \(self.device.name) cannot play \(Self.list(plan.reasons))"
        guard self.mode != .never else {
            throw CommandFailure(
                .badInput, "\(name): \(cannot ?? "it needs converting"), and --convert never was given")
        }
        guard let ffmpeg = self.tools.ffmpeg else {
            throw CommandFailure(
                .badInput,
                "\(name): \(cannot ?? "it needs converting"); install ffmpeg to convert it (e.g. apt install ffmpeg)")
        }
        // A film whose video goes out as H.264 is served as HLS, every segment listed from the
        // start: the TV shows its length and seeks anywhere while ffmpeg is still near the start.
        if plan.isSegmentable, media.duration != nil {
            Output.progress(
                "converting \(name)\(cannot.map { ": \($0)" } ?? ""); \(Self.describe(plan, into: "HLS segments made as they are asked for"))"
            )
            served.url = try await self.server.serve(file: file, segmenting: plan, media: media, tools: self.tools)
            served.contentType = "application/vnd.apple.mpegurl"
            served.isSegmented = true
            return served
        }
        Output.progress("converting \(name)\(cannot.map { ": \($0)" } ?? ""); \(Self.describe(plan, into: "MP4"))")
        served.url = try self.server.serve(file: file, converting: plan, with: ffmpeg)
        return served
    }

    /// The index of the `number`th subtitle stream of `media` (1 for the first), said on the progress line.
    private static func subtitleStream(_ number: Int, of media: ProbedMedia, name: String) throws -> Int {
        let streams = media.streams.filter { $0.kind == .subtitle }
        guard number >= 1, number <= streams.count else {
            throw CommandFailure(.badInput, "--burn-subtitles \(number): \(name) has \(streams.count) subtitle streams")
        }
        let stream = streams[number - 1]
        let language = stream.language.map(MediaLanguage.bcp47)
        Output.progress(
            "burning subtitle stream \(number) (\(stream.codec)\(language.map { ", \($0)" } ?? "")) into the picture")
        return stream.index
    }

    /// The index of the audio stream `choice` names in `media`, said on the progress line.
    private static func audioStream(_ choice: AudioChoice, of media: ProbedMedia, name: String) throws -> Int {
        let streams = media.streams.filter { $0.kind == .audio }
        let stream: ProbedMedia.Stream
        switch choice {
        case .number(let number):
            guard number <= streams.count else {
                throw CommandFailure(.badInput, "--audio \(number): \(name) has \(streams.count) audio streams")
            }
            stream = streams[number - 1]
        case .language(let language):
            guard let found = streams.first(where: { MediaLanguage.matches($0.language, language) }) else {
                let known = streams.compactMap { $0.language.map(MediaLanguage.bcp47) }
                throw CommandFailure(
                    .badInput,
                    "--audio \(language): \(name) has no sound in that language"
                        + (known.isEmpty ? "" : " (there are: \(known.joined(separator: ", ")))"))
            }
            stream = found
        }
        let language = stream.language.map(MediaLanguage.bcp47)
        Output.progress(
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
                Output.progress(
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
                Output.progress(
                    "subtitles in the file: \(name)\(language.map { " (\($0))" } ?? ""), \(vtt.cueCount) cues")
                tracks.append(
                    Served.TextTrack(url: url, language: language, name: name, isDefault: stream.isDefault))
            } catch {
                Output.progress("\(file.lastPathComponent): subtitle stream \(stream.index) left out: \(error.message)")
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
            throw CommandFailure(
                .badInput, "\(file.path): cannot tell its type from the extension; give --content-type")
        }
        guard MediaContentType.playableByCast.contains(type) else {
            throw CommandFailure(
                .badInput,
                "\(file.lastPathComponent) is \(type), a container Cast devices do not play "
                    + "(developers.google.com/cast/docs/media)"
                    + (unreadable == nil
                        ? "; install ffmpeg to convert it" : ", and ffprobe cannot read it to convert it"))
        }
        return Served(url: try self.server.serve(file: file, contentType: type), contentType: type, isConverted: false)
    }
}
