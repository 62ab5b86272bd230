import CastMediaServer
import Foundation
import Testing

/// What is served as it is, remuxed or transcoded, per device — against the
/// table's sources (developers.google.com/cast/docs/media).
@Suite(.timeLimit(.minutes(3))) struct ConversionPlanTests {
    typealias Stream = ProbedMedia.Stream

    static let h264 = Stream(
        index: 0, kind: .video, codec: "h264", profile: "High", level: 40, pixelFormat: "yuv420p", width: 1_920,
        height: 1_080)
    static let hevc4K = Stream(
        index: 0, kind: .video, codec: "hevc", profile: "Main 10", level: 150, pixelFormat: "yuv420p10le",
        width: 3_840, height: 2_160)
    static let vp9 = Stream(
        index: 0, kind: .video, codec: "vp9", profile: "Profile 0", pixelFormat: "yuv420p", width: 1_280, height: 720)
    static let aac = Stream(index: 1, kind: .audio, codec: "aac", profile: "LC", channels: 2)
    static let eac3 = Stream(index: 1, kind: .audio, codec: "eac3", channels: 6)
    static let opus = Stream(index: 1, kind: .audio, codec: "opus", channels: 2)
    static let mp4 = "mov,mp4,m4a,3gp,3g2,mj2"

    @Test func whatTheDevicePlaysIsServedAsItIs() throws {
        let plan = try ConversionPlan(
            media: ProbedMedia(container: Self.mp4, streams: [Self.h264, Self.aac]), fileName: "film.mp4",
            device: .chromecast)
        #expect(!plan.isNeeded)
        #expect(plan.reasons.isEmpty)
        #expect(plan.contentType(ofOriginal: "film.mp4") == "video/mp4")
        // A cover picture in an MP3 is not video.
        let cover = Stream(index: 1, kind: .video, codec: "mjpeg", isAttachedPicture: true)
        let song = try ConversionPlan(
            media: ProbedMedia(
                container: "mp3", streams: [Stream(index: 0, kind: .audio, codec: "mp3", channels: 2), cover]),
            fileName: "song.mp3", device: .chromecast)
        #expect(!song.isNeeded)
        #expect(song.video == nil)
    }

    @Test func matroskaWithPlayableCodecsIsRemuxedWithoutTranscoding() throws {
        let plan = try ConversionPlan(
            media: ProbedMedia(container: "matroska,webm", streams: [Self.h264, Self.aac]), fileName: "film.mkv",
            device: .chromecast)
        #expect(plan.isNeeded && plan.remuxes)
        #expect(plan.video?.transcodes == false && plan.audio?.transcodes == false)
        #expect(plan.reasons == ["the Matroska container"])
        let arguments = plan.ffmpegArguments(input: "/in/film.mkv", output: "/out/film.mp4")
        #expect(arguments.contains(["-map", "0:0", "-c:v", "copy"]))
        #expect(arguments.contains(["-map", "0:1", "-c:a", "copy"]))
        #expect(arguments.contains(["-f", "mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof"]))
        #expect(arguments.last == "/out/film.mp4")
    }

    @Test func eachDeviceDecodesWhatItsRowSays() throws {
        let film = ProbedMedia(container: "matroska,webm", streams: [Self.hevc4K, Self.eac3])
        // Chromecast: no HEVC; E-AC-3 nowhere.
        let old = try ConversionPlan(media: film, fileName: "film.mkv", device: .forModel("Chromecast"))
        #expect(old.video?.transcodes == true && old.audio?.transcodes == true)
        #expect(old.reasons == ["HEVC video", "E-AC-3 audio", "the Matroska container"])
        let arguments = old.ffmpegArguments(input: "in", output: "out")
        #expect(arguments.contains(["-c:v", "libx264"]))
        #expect(arguments.contains(["-c:a", "aac", "-b:a", "192k", "-ac", "2"]))
        #expect(arguments.contains { $0.hasPrefix("scale=w='min(1920,iw)':h='min(1080,ih)'") })
        // Ultra: HEVC Main 10 at level 5.0 and 4K is its own; the sound still converts.
        let ultra = try ConversionPlan(media: film, fileName: "film.mkv", device: .forModel("Chromecast Ultra"))
        #expect(ultra.video?.transcodes == false && ultra.audio?.transcodes == true)
        #expect(ultra.ffmpegArguments(input: "in", output: "out").contains(["-c:v", "copy", "-tag:v", "hvc1"]))
        // Over its level: named with the level.
        var level62 = Self.hevc4K
        level62.level = 186
        let tooHigh = try ConversionPlan(
            media: ProbedMedia(container: Self.mp4, streams: [level62, Self.aac]), fileName: "film.mp4",
            device: .chromecastUltra)
        #expect(tooHigh.reasons == ["HEVC video (level 6.2)"])
        // A Nest Hub shows 720p: 1080p H.264 is scaled down.
        let hub = try ConversionPlan(
            media: ProbedMedia(container: Self.mp4, streams: [Self.h264, Self.aac]), fileName: "film.mp4",
            device: .forModel("Google Nest Hub"))
        #expect(hub.reasons == ["H.264 video (1920×1080)"])
        #expect(hub.ffmpegArguments(input: "in", output: "out").contains { $0.hasPrefix("scale=w='min(1280,iw)'") })
        // AV1 only on the Streamer.
        let av1 = ProbedMedia(
            container: Self.mp4,
            streams: [
                Stream(
                    index: 0, kind: .video, codec: "av1", profile: "Main", pixelFormat: "yuv420p", width: 1_920,
                    height: 1_080)
            ])
        #expect(
            try ConversionPlan(media: av1, fileName: "a.mp4", device: .forModel("Google TV Streamer")).isNeeded == false
        )
        #expect(try ConversionPlan(media: av1, fileName: "a.mp4", device: .forModel("Chromecast Ultra")).isNeeded)
    }

    @Test func webMIsPlayedAsItIsOnlyWithWebMCodecs() throws {
        let webm = ProbedMedia(container: "matroska,webm", streams: [Self.vp9, Self.opus])
        #expect(try ConversionPlan(media: webm, fileName: "clip.webm", device: .chromecastUltra).isNeeded == false)
        // The oldest Chromecast has no VP9: transcoded; Opus copied into MP4.
        let old = try ConversionPlan(media: webm, fileName: "clip.webm", device: .chromecast)
        #expect(old.reasons == ["VP9 video"])
        #expect(old.video?.transcodes == true && old.audio?.transcodes == false)
        // Vorbis is not copied into MP4.
        let vorbis = Stream(index: 1, kind: .audio, codec: "vorbis", channels: 2)
        let remuxed = try ConversionPlan(
            media: ProbedMedia(container: "matroska,webm", streams: [Self.h264, vorbis]), fileName: "film.mkv",
            device: .chromecast)
        #expect(remuxed.audio?.transcodes == true)
        #expect(remuxed.reasons == ["the Matroska container"])
    }

    @Test func aSpeakerGetsTheSoundAloneAndNothingPlayableIsATypedError() throws {
        let film = ProbedMedia(container: Self.mp4, streams: [Self.h264, Self.aac])
        let speaker = try ConversionPlan(media: film, fileName: "film.mp4", device: .forModel("Google Nest Mini"))
        #expect(speaker.video == nil)
        #expect(speaker.isNeeded)
        #expect(speaker.contentType(ofOriginal: "film.mp4") == "audio/mp4")
        #expect(!speaker.ffmpegArguments(input: "in", output: "out").contains("0:0"))

        let subtitlesOnly = ProbedMedia(
            container: "matroska,webm", streams: [Stream(index: 0, kind: .subtitle, codec: "subrip")])
        let error = #expect(throws: MediaServerError.self) {
            try ConversionPlan(media: subtitlesOnly, fileName: "subs.mkv", device: .chromecast)
        }
        #expect(error?.code == .unsupportedMedia)
    }

    @Test func ffprobeJSONIsReadDefensively() throws {
        let json = """
            {"streams":[{"index":0,"codec_type":"video","codec_name":"h264","profile":"High","level":41,
            "width":1280,"height":720,"pix_fmt":"yuv420p","disposition":{"default":1,"attached_pic":0}},
            {"index":1,"codec_type":"audio","codec_name":"aac","channels":2,"tags":{"language":"eng"}},
            {"index":2,"codec_type":"audio","codec_name":"ac3","channels":6,"disposition":{"default":1}},
            {"codec_type":"video"}],
            "format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"5025.120000",
            "tags":{"TITLE":"  Le Film ","artist":"","ALBUM":"Œuvres"}}}
            """
        let media = try ProbedMedia(ffprobeJSON: Array(json.utf8))
        #expect(media.streams.count == 3)
        #expect(media.duration == .milliseconds(5_025_120))
        #expect(media.title == "Le Film")
        #expect(media.artist == nil)
        #expect(media.album == "Œuvres")
        #expect(media.video?.level == 41)
        // The default audio stream is the one played.
        #expect(media.audio?.codec == "ac3")
        #expect(media.streams[1].language == "eng")
        for bad in ["", "[]", "{}", "{\"format\":{}}", "{\"format\":{\"format_name\":\"\"}}", "null", "{\"format\":3}"]
        {
            let error = #expect(throws: MediaServerError.self, "\(bad)") {
                try ProbedMedia(ffprobeJSON: Array(bad.utf8))
            }
            #expect(error?.code == .probeFailed)
        }
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: ProbedMedia.maximumJSONSize + 1)
        #expect(throws: MediaServerError.self) { try ProbedMedia(ffprobeJSON: huge) }
        let negative = try ProbedMedia(
            ffprobeJSON: Array(#"{"format":{"format_name":"mp3","duration":"-4"},"streams":[]}"#.utf8))
        #expect(negative.duration == nil)
    }

    @Test func anAudioStreamOtherThanTheDefaultIsChosenByARemuxThatKeepsItAlone() throws {
        let json = """
            {"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2"},"streams":[
            {"index":0,"codec_type":"video","codec_name":"h264","profile":"High","level":40,"width":1280,"height":720,
            "pix_fmt":"yuv420p"},
            {"index":1,"codec_type":"audio","codec_name":"aac","disposition":{"default":1},"tags":{"language":"eng"}},
            {"index":2,"codec_type":"audio","codec_name":"aac","tags":{"language":"ger"}},
            {"index":3,"codec_type":"subtitle","codec_name":"mov_text"}]}
            """
        let media = try ProbedMedia(ffprobeJSON: Array(json.utf8))
        // The default sound: played as it is.
        let asItIs = try ConversionPlan(media: media, fileName: "film.mp4", device: .chromecast)
        #expect(!asItIs.isNeeded)
        #expect(try ConversionPlan(media: media, fileName: "film.mp4", device: .chromecast, audioStream: 1) == asItIs)
        // The German sound: a remux keeping video and that stream, nothing transcoded.
        let german = try ConversionPlan(media: media, fileName: "film.mp4", device: .chromecast, audioStream: 2)
        #expect(german.isNeeded && german.remuxes)
        #expect(german.audio?.stream.language == "ger" && german.audio?.transcodes == false)
        #expect(german.video?.transcodes == false)
        #expect(german.reasons.isEmpty)
        let arguments = german.ffmpegArguments(input: "in.mp4", output: "out.mp4")
        #expect(arguments.joined(separator: " ").contains("-map 0:0 -c:v copy -map 0:2 -c:a copy"))
        // Not an audio stream: a typed error.
        for index in [0, 3, 9] {
            let error = #expect(throws: MediaServerError.self) {
                try ConversionPlan(media: media, fileName: "film.mp4", device: .chromecast, audioStream: index)
            }
            #expect(error?.code == .unsupportedMedia)
        }
    }

    @Test func subtitleStreamsAreTextOrPicturesWithTheirLanguageAndTitle() throws {
        let json = """
            {"format":{"format_name":"matroska,webm"},"streams":[
            {"index":2,"codec_type":"subtitle","codec_name":"subrip","tags":{"language":"eng","title":"English (SDH)"}},
            {"index":3,"codec_type":"subtitle","codec_name":"ass","disposition":{"default":1},"tags":{"LANGUAGE":"ger"}},
            {"index":4,"codec_type":"subtitle","codec_name":"hdmv_pgs_subtitle","tags":{"language":"fre"}},
            {"index":5,"codec_type":"subtitle","codec_name":"mov_text"}]}
            """
        let media = try ProbedMedia(ffprobeJSON: Array(json.utf8))
        #expect(media.streams.map(\.isTextSubtitle) == [true, true, false, true])
        #expect(media.streams[0].title == "English (SDH)")
        #expect(media.streams[1].language == "ger" && media.streams[1].isDefault && media.streams[1].title == nil)
    }
}
