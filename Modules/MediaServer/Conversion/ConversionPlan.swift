import Foundation

/// Whether a device plays a file as it is, and if not, what ffmpeg must do:
/// copy the streams it can play into fragmented MP4 (a remux: fast, no
/// quality lost) and transcode only those it cannot — video to H.264,
/// sound to AAC stereo.
///
/// ```swift
/// let media = try await tools.probe(file)
/// let plan = try ConversionPlan(media: media, fileName: file.lastPathComponent, device: .forModel(model))
/// let url = plan.isNeeded
///     ? try server.serve(file: file, converting: plan, with: ffmpeg)
///     : try server.serve(file: file)
/// ```
public struct ConversionPlan: Sendable, Hashable {
    /// What becomes of one stream.
    public struct StreamPlan: Sendable, Hashable {
        /// The stream.
        public var stream: ProbedMedia.Stream
        /// Whether it is decoded and encoded again (else copied as it is).
        public var transcodes: Bool
    }

    /// The video stream kept, if any.
    public var video: StreamPlan?
    /// The audio stream kept, if any.
    public var audio: StreamPlan?
    /// Every sound stream of a film that has more than one, in the file's
    /// order, each as HLS carries it (AAC and MP3 copied, others made AAC):
    /// served as HLS, they become audio renditions the receiver switches
    /// between while playing, ``audio`` the default. Empty for a film with
    /// one sound, and ignored when not served as HLS (one sound is kept).
    public var soundRenditions: [StreamPlan] = []
    /// Whether the container changes (to fragmented MP4).
    public var remuxes: Bool
    /// What the device cannot play, for people, codecs first: "HEVC video (Main 10, 3840×2160)", "AC-3 audio",
    /// "the Matroska container".
    public var reasons: [String]
    /// The device kind the plan is for.
    public var device: CastMediaSupport
    /// Picture subtitles (PGS, DVD) burned into the video, which is then transcoded.
    public var burnedSubtitles: ProbedMedia.Stream?
    /// The largest picture a transcoded video is scaled into (long side,
    /// short side): the device's H.264 limit, at most 1080p.
    var transcodedSize: (long: Int, short: Int) {
        guard let limits = self.device.video["h264"] else { return (1_920, 1_080) }
        return (min(limits.maximumLongSide, 1_920), min(limits.maximumShortSide, 1_080))
    }

    /// Whether anything must be done: a plan that is not needed serves the file as it is.
    public var isNeeded: Bool {
        self.remuxes || self.video?.transcodes == true || self.audio?.transcodes == true
    }

    /// The content type served: the file's own when nothing is needed, else fragmented MP4.
    public func contentType(ofOriginal fileName: String) -> String {
        guard self.isNeeded else { return MediaContentType.guess(from: fileName) ?? "application/octet-stream" }
        return self.video == nil ? "audio/mp4" : "video/mp4"
    }

    /// Containers Cast devices read as they are (developers.google.com/cast/docs/media,
    /// "Media container formats"), by ffmpeg's demuxer names.
    private static let playableContainers: Set<String> = ["mp3", "ogg", "wav", "flac", "aac", "mpegts"]
    /// The codecs WebM may hold.
    private static let webMCodecs: Set<String> = ["vp8", "vp9", "av1", "opus", "vorbis"]
    /// The audio codecs copied into MP4 that Cast devices' MP4 reader takes.
    private static let mp4AudioCodecs: Set<String> = ["aac", "mp3", "opus", "flac"]

    /// Decides for `media`, named `fileName`, on `device`.
    ///
    /// - Parameters:
    ///   - media: what ffprobe read of the file.
    ///   - fileName: the file's name (its extension says the container's type).
    ///   - device: what the device decodes.
    ///   - audioStream: the audio stream to keep, by its index in the file
    ///     (another language, a commentary); `nil` for the file's default. A
    ///     stream other than the default is chosen at conversion time (a
    ///     remux that keeps it alone): a receiver given the whole file plays
    ///     its default sound.
    ///   - burningSubtitles: a picture subtitle stream (PGS, DVD), by its
    ///     index in the file, to draw into the video: receivers show only
    ///     text tracks, so this is how such subtitles are seen. The video is
    ///     then transcoded.
    /// - Throws: ``MediaServerError/Code-swift.struct/unsupportedMedia``
    ///   when it holds neither video nor sound the device could be given,
    ///   `audioStream` is not one of its audio streams, or
    ///   `burningSubtitles` is not one of its picture subtitle streams (text
    ///   subtitles are sent as text tracks) or the file has no video.
    public init(
        media: ProbedMedia, fileName: String, device: CastMediaSupport, audioStream: Int? = nil,
        burningSubtitles: Int? = nil
    ) throws(MediaServerError) {
        self.device = device
        let burned = try Self.burnedStream(burningSubtitles, of: media, fileName: fileName, device: device)
        self.burnedSubtitles = burned
        var reasons: [String] = []
        let audio = try Self.keptAudio(audioStream, of: media, fileName: fileName)
        let otherSound = audio != media.audio
        let kept = (video: device.video.isEmpty ? nil : media.video, audio: audio)
        guard kept.video != nil || kept.audio != nil else {
            throw MediaServerError(.unsupportedMedia, "\(fileName) holds no video or sound a \(device.name) could play")
        }
        let videoTranscodes = kept.video.map { stream in
            guard let problem = Self.problem(with: stream, on: device) else { return burned != nil }
            reasons.append(problem)
            return true
        }
        let families = Set(media.container.split(separator: ",").map(String.init))
        let codecs = Set([kept.video, kept.audio].compactMap { $0?.codec })
        let containerPlays = Self.containerPlays(families, fileName: fileName, codecs: codecs)
        let droppedVideo = media.video != nil && kept.video == nil
        var remuxes = !containerPlays || droppedVideo || videoTranscodes == true || otherSound
        var audioTranscodes = kept.audio.map { stream in
            guard device.audio.contains(stream.codec) else {
                reasons.append("\(Self.codecName(stream.codec)) audio")
                return true
            }
            return false
        }
        if audioTranscodes == true { remuxes = true }
        if !containerPlays { reasons.append("the \(Self.containerName(families)) container") }
        // Into MP4, only what MP4 carries for Cast is copied.
        if remuxes, let stream = kept.audio, audioTranscodes == false, !Self.mp4AudioCodecs.contains(stream.codec) {
            audioTranscodes = true
        }
        self.video = kept.video.map { StreamPlan(stream: $0, transcodes: videoTranscodes ?? false) }
        self.audio = kept.audio.map { StreamPlan(stream: $0, transcodes: audioTranscodes ?? false) }
        self.remuxes = remuxes
        self.reasons = reasons
        let sounds = media.streams.filter { $0.kind == .audio }
        if sounds.count > 1, kept.video != nil {
            self.soundRenditions = sounds.map { stream in
                let copies = device.audio.contains(stream.codec) && Self.segmentAudioCodecs.contains(stream.codec)
                return StreamPlan(stream: stream, transcodes: !copies)
            }
        }
    }

    /// The sound codecs an HLS segment carries as they are (MPEG-TS with AAC or MP3).
    private static let segmentAudioCodecs: Set<String> = ["aac", "mp3"]

    /// The picture subtitle stream `burningSubtitles` names in `media`, checked to be one that can be drawn
    /// into its video; `nil` when none is asked for.
    private static func burnedStream(
        _ burningSubtitles: Int?, of media: ProbedMedia, fileName: String, device: CastMediaSupport
    ) throws(MediaServerError) -> ProbedMedia.Stream? {
        guard let burningSubtitles else { return nil }
        guard let stream = media.streams.first(where: { $0.index == burningSubtitles && $0.kind == .subtitle })
        else {
            throw MediaServerError(.unsupportedMedia, "\(fileName) has no subtitle stream \(burningSubtitles)")
        }
        guard !stream.isTextSubtitle else {
            throw MediaServerError(
                .unsupportedMedia,
                "subtitle stream \(burningSubtitles) of \(fileName) is text (\(stream.codec)): it is sent as a text track"
            )
        }
        guard media.video != nil, !device.video.isEmpty else {
            throw MediaServerError(.unsupportedMedia, "\(fileName) has no video to draw subtitles on")
        }
        return stream
    }

    /// The audio stream kept: the one `audioStream` names in `media`, or the file's default when it is `nil`.
    private static func keptAudio(
        _ audioStream: Int?, of media: ProbedMedia, fileName: String
    ) throws(MediaServerError) -> ProbedMedia.Stream? {
        guard let audioStream else { return media.audio }
        guard let chosen = media.streams.first(where: { $0.index == audioStream && $0.kind == .audio }) else {
            throw MediaServerError(.unsupportedMedia, "\(fileName) has no audio stream \(audioStream)")
        }
        return chosen
    }

    /// Whether a Cast device reads the container, of ffmpeg's demuxer `families`, as it is, holding `codecs`.
    private static func containerPlays(_ families: Set<String>, fileName: String, codecs: Set<String>) -> Bool {
        let containerType = MediaContentType.guess(from: fileName)
        if families.contains("mp4") || families.contains("mov") {
            return containerType.map { MediaContentType.playableByCast.contains($0) } ?? false
        } else if families.contains("webm") {
            return containerType == "video/webm" && codecs.isSubset(of: Self.webMCodecs)
        } else {
            return !families.isDisjoint(with: Self.playableContainers)
        }
    }

    /// What about `stream` the device cannot decode, for people; `nil` when it can.
    private static func problem(with stream: ProbedMedia.Stream, on device: CastMediaSupport) -> String? {
        let name = Self.codecName(stream.codec)
        guard let limits = device.video[stream.codec] else { return "\(name) video" }
        var beyond: [String] = []
        if let profile = stream.profile, !limits.profiles.isEmpty, !limits.profiles.contains(profile) {
            beyond.append(profile)
        }
        if let level = stream.level, let maximum = limits.maximumLevel, level > maximum {
            beyond.append("level \(Self.levelName(level, codec: stream.codec))")
        }
        if let format = stream.pixelFormat, !limits.pixelFormats.contains(format) { beyond.append(format) }
        if let width = stream.width, let height = stream.height,
            max(width, height) > limits.maximumLongSide || min(width, height) > limits.maximumShortSide
        {
            beyond.append("\(width)×\(height)")
        }
        return beyond.isEmpty ? nil : "\(name) video (\(beyond.joined(separator: ", ")))"
    }

    private static func levelName(_ level: Int, codec: String) -> String {
        let tenths = codec == "h264" ? level : level / 3
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A codec's name as people know it.
    static func codecName(_ codec: String) -> String {
        let names = [
            "h264": "H.264", "hevc": "HEVC", "av1": "AV1", "vp8": "VP8", "vp9": "VP9", "mpeg4": "MPEG-4 Part 2",
            "mpeg2video": "MPEG-2", "aac": "AAC", "ac3": "AC-3", "eac3": "E-AC-3", "dts": "DTS", "truehd": "TrueHD",
            "mp3": "MP3", "opus": "Opus", "vorbis": "Vorbis", "flac": "FLAC", "alac": "ALAC", "wmav2": "WMA",
        ]
        return names[codec] ?? codec
    }

    private static func containerName(_ families: Set<String>) -> String {
        if families.contains("matroska") { return "Matroska" }
        if families.contains("mov") { return "QuickTime" }
        if families.contains("avi") { return "AVI" }
        return families.sorted().first ?? "unknown"
    }

    /// Whether the converted film can be served as HLS
    /// (``MediaServer/serve(file:segmenting:media:tools:startingAt:)``): it has
    /// video, the video sent is H.264 — the one codec Cast's HLS player
    /// takes in MPEG-TS (the Cast SDK's `HlsVideoSegmentFormat.MPEG2_TS`:
    /// "Support AVC") — or copied HEVC, in fragmented MP4 segments
    /// (``segmentsAreFragmentedMP4``), and the sound sent is AAC or MP3.
    /// Sound alone converts in seconds and stays one file.
    public var isSegmentable: Bool {
        guard self.isNeeded, let video = self.video else { return false }
        guard video.transcodes || video.stream.codec == "h264" || self.segmentsAreFragmentedMP4 else { return false }
        guard let audio = self.audio else { return true }
        return audio.transcodes || Self.segmentAudioCodecs.contains(audio.stream.codec)
    }

    /// Whether it is served as HLS with its sounds as renditions: a video
    /// stream alone in the main segments, each sound in segments of its own
    /// (MPEG-TS, or fragmented MP4 beside a copied HEVC video).
    var hasSoundRenditions: Bool {
        self.isSegmentable && self.soundRenditions.count > 1
    }

    /// Whether its HLS segments are fragmented MP4 with an initialization
    /// segment (`EXT-X-MAP`), not MPEG-TS: a copied HEVC video, which Cast's
    /// HLS player takes only in fragmented MP4 (`HlsVideoSegmentFormat.FMP4`).
    public var segmentsAreFragmentedMP4: Bool {
        guard let video = self.video, !video.transcodes, video.stream.codec == "hevc" else { return false }
        return true
    }

    /// ffmpeg's arguments: `input` converted into fragmented MP4 at
    /// `output`, with progress (`out_time_us=`) on standard output.
    public func ffmpegArguments(input: String, output: String) -> [String] {
        self.ffmpegArguments(input: .file(URL(fileURLWithPath: input)), output: output)
    }

    /// ffmpeg's arguments: `input` (a file, or a URL with its headers)
    /// converted into fragmented MP4 at `output`, with progress on standard output.
    public func ffmpegArguments(input: MediaInput, output: String) -> [String] {
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-progress", "pipe:1"]
        arguments += input.options + ["-i", input.location]
        // A key frame every 2 s: each starts a fragment the receiver can play.
        arguments += self.streamArguments(keyFrames: "expr:gte(t,n_forced*2)")
        arguments += [
            "-sn", "-dn", "-max_muxing_queue_size", "1024", "-f", "mp4", "-movflags",
            "frag_keyframe+empty_moov+default_base_moof", "-y", output,
        ]
        return arguments
    }

    /// ffmpeg's arguments for one run of an HLS conversion: the segments of
    /// `layout` from `index` on, as MPEG-TS files named by their number in
    /// `folder`, with progress on standard output.
    ///
    /// The film's own timestamps are kept (`-copyts`; the file's
    /// `startTime` and ``segmentTimestampOffset`` added), so segments of
    /// runs started at different places join without a jump. A run after the first starts a second before its
    /// first segment: ffmpeg seeks to a key frame at or before where it is
    /// told, and a copied video can only start at one. What comes before
    /// the first boundary lands in one more file, numbered `index - 1`,
    /// which the caller drops.
    func segmentArguments(
        input: MediaInput, layout: SegmentLayout, from index: Int, startTime: Double, folder: String
    ) -> [String] {
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-progress", "pipe:1"]
        if index > 0 { arguments += ["-ss", Self.seconds(max(0, layout.starts[index] - 1))] }
        arguments += input.options + ["-copyts", "-i", input.location]
        // Transcoded video is cut on the layout's grid: a key frame forced on each boundary. As a
        // list of the film's own times (an `expr:` counts `t` from where the run started instead).
        let keyFrames = layout.starts[index...].map { Self.seconds(startTime + $0) }.joined(separator: ",")
        // Each cut a millisecond early: a key frame printed to the microsecond may lie just before its time.
        let offset = startTime + Self.segmentTimestampOffset
        let cuts =
            layout.starts[(index > 0 ? index : 1)...].map { offset + $0 - 0.001 } + [
                offset + layout.duration + 3_600
            ]
        // One segment muxer per output, each cutting at the same times.
        let muxer = [
            "-sn", "-dn", "-avoid_negative_ts", "disabled", "-output_ts_offset",
            Self.seconds(Self.segmentTimestampOffset),
            "-muxdelay", "0", "-max_muxing_queue_size", "1024",
            "-f", "segment", "-segment_format", "mpegts", "-segment_times",
            cuts.map(Self.seconds).joined(separator: ","), "-segment_start_number", "\(index > 0 ? index - 1 : 0)",
            "-y",
        ]
        guard self.hasSoundRenditions, let video = self.video else {
            return arguments + self.streamArguments(keyFrames: keyFrames) + muxer + [folder + "/%d.ts"]
        }
        // The video alone in the main segments; each sound in its own, decoded from the same run.
        arguments += self.videoArguments(video, keyFrames: keyFrames) + muxer + [folder + "/%d.ts"]
        for (offset, sound) in self.soundRenditions.enumerated() {
            arguments +=
                Self.audioArguments(sound) + muxer + [folder + "/" + Self.renditionPrefix(offset + 1) + "%d.ts"]
        }
        return arguments
    }

    /// ffmpeg's arguments for one run of a fragmented MP4 HLS conversion
    /// (``segmentsAreFragmentedMP4``): the film from the key frame before
    /// segment `index` on, as one fragmented MP4 at `output` that starts a
    /// fragment at each video key frame, which the server gathers into the
    /// layout's segments. The video is the first track (its timescale
    /// 90 kHz), each fragment carries its decoding time (`frag_discont`),
    /// no edit list: every run's header is the same, and fragments of runs
    /// started at different places join. The film's own timestamps are
    /// kept, as for MPEG-TS segments.
    ///
    /// With sound renditions (``hasSoundRenditions``) the video goes alone
    /// into `output`, and each sound into a fragmented MP4 of its own beside
    /// it, named with the rendition's prefix (`a1-stream.mp4`…), in
    /// fragments of ``soundFragmentDuration``: ffmpeg starts an MP4 fragment
    /// at a key frame of video only.
    func fragmentArguments(input: MediaInput, layout: SegmentLayout, from index: Int, output: String) -> [String] {
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-nostats", "-progress", "pipe:1"]
        if index > 0 { arguments += ["-ss", Self.seconds(max(0, layout.starts[index] - 1))] }
        arguments += input.options + ["-copyts", "-i", input.location]
        let muxer = [
            "-sn", "-dn", "-avoid_negative_ts", "disabled", "-output_ts_offset",
            Self.seconds(Self.segmentTimestampOffset), "-muxdelay", "0", "-max_muxing_queue_size", "1024",
            "-use_editlist", "0", "-f", "mp4",
        ]
        let videoMuxer = [
            "-video_track_timescale", "\(Self.fragmentTimescale)", "-movflags",
            "frag_keyframe+empty_moov+default_base_moof+frag_discont",
        ]
        guard self.hasSoundRenditions, let video = self.video else {
            return arguments + self.streamArguments(keyFrames: "") + muxer + videoMuxer + ["-y", output]
        }
        arguments += self.videoArguments(video, keyFrames: "") + muxer + videoMuxer + ["-y", output]
        let file = URL(fileURLWithPath: output)
        for (offset, sound) in self.soundRenditions.enumerated() {
            arguments += Self.audioArguments(sound) + muxer
            arguments += [
                "-frag_duration", "\(Int(Self.soundFragmentDuration * 1_000_000))", "-movflags",
                "empty_moov+default_base_moof+frag_discont", "-y",
                file.deletingLastPathComponent().appendingPathComponent(
                    Self.renditionPrefix(offset + 1) + file.lastPathComponent
                ).path,
            ]
        }
        return arguments
    }

    /// How long each fragment of a sound rendition's fragmented MP4 is,
    /// seconds: a fragment goes into the segment it starts in, so a
    /// segment's sound may begin this much after the segment's time.
    static let soundFragmentDuration = 0.1

    /// The video track's timescale in fragmented MP4 segments: ticks per second.
    static let fragmentTimescale = 90_000

    /// What the segments of sound rendition `number` (1 for the first) are named before their index.
    static func renditionPrefix(_ number: Int) -> String { "a\(number)-" }

    /// What every segment's timestamps are moved by, seconds. Each segment
    /// is written by an MPEG-TS muxer of its own, which moves a segment
    /// whose first decoding time is negative (B-frames, AAC's priming) to
    /// 0 and no other: the first segment then played 80 ms late against
    /// the second. A second later, no segment starts below 0.
    static let segmentTimestampOffset = 1.0

    /// `seconds` as ffmpeg reads a time: decimal, to the microsecond.
    private static func seconds(_ seconds: Double) -> String { String(format: "%.6f", seconds) }

    /// The `-map` and codec arguments of the kept streams; `keyFrames` is
    /// where a transcoded video's key frames are forced.
    private func streamArguments(keyFrames: String) -> [String] {
        (self.video.map { self.videoArguments($0, keyFrames: keyFrames) } ?? [])
            + (self.audio.map(Self.audioArguments) ?? [])
    }

    /// The `-map` and codec arguments of `video`; `keyFrames` is where a transcoded video's key frames are forced.
    private func videoArguments(_ video: StreamPlan, keyFrames: String) -> [String] {
        guard video.transcodes else {
            return ["-map", "0:\(video.stream.index)", "-c:v", "copy"]
                + (video.stream.codec == "hevc" ? ["-tag:v", "hvc1"] : [])
        }
        var arguments: [String] = []
        let landscape = (video.stream.width ?? 1) >= (video.stream.height ?? 1)
        let (width, height) =
            landscape
            ? (self.transcodedSize.long, self.transcodedSize.short)
            : (self.transcodedSize.short, self.transcodedSize.long)
        let scale =
            "scale=w='min(\(width),iw)':h='min(\(height),ih)':force_original_aspect_ratio=decrease:force_divisible_by=2"
        if let subtitles = self.burnedSubtitles {
            // The subtitles' canvas (a DVD's 720×576) scaled onto the picture, then drawn over it.
            arguments += [
                "-filter_complex",
                "[0:\(subtitles.index)][0:\(video.stream.index)]scale2ref[subtitles][picture];"
                    + "[picture][subtitles]overlay=eof_action=pass,\(scale)[video]",
                "-map", "[video]",
            ]
        } else {
            arguments += ["-map", "0:\(video.stream.index)", "-vf", scale]
        }
        return arguments + [
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "21", "-profile:v", "high", "-level:v", "4.1",
            "-pix_fmt", "yuv420p", "-force_key_frames", keyFrames,
        ]
    }

    /// The `-map` and codec arguments of `audio`.
    private static func audioArguments(_ audio: StreamPlan) -> [String] {
        ["-map", "0:\(audio.stream.index)"]
            + (audio.transcodes ? ["-c:a", "aac", "-b:a", "192k", "-ac", "2"] : ["-c:a", "copy"])
    }
}
