import CastMediaServer
import Foundation
import Testing

/// yt-dlp's answer for a web page read defensively, and the format each
/// device plays chosen from it. The JSON is yt-dlp 2026.10.26's shape: its
/// generic extractor on a page with a `<video>` (what it printed here for a
/// local page), and a site's list of formats as its YouTube extractor
/// lists them (picture alone, sound alone, both, HLS).
@Suite(.timeLimit(.minutes(1))) struct WebVideoTests {
    static let page = URL(string: "https://videos.example/watch/1")!

    static let generic = """
        {"formats": [{"url": "http://127.0.0.1:18777/film.mp4", "vcodec": null, "ext": "mp4", "http_headers": \
        {"User-Agent": "Mozilla/5.0", "Referer": "http://127.0.0.1:18777/page.html"}, "protocol": "http", \
        "video_ext": "mp4", "audio_ext": "none", "vbr": null, "abr": null, "tbr": null, "resolution": null, \
        "format_id": "0", "format": "0 - unknown"}], "subtitles": {}, "thumbnail": \
        "http://127.0.0.1:18777/poster.jpg", "id": "page-1", "title": "A film on a page (1)", "extractor": "html5", \
        "url": "http://127.0.0.1:18777/film.mp4", "vcodec": null, "ext": "mp4", "protocol": "http", \
        "_type": "video"}
        """

    static let site = """
        {"id": "x", "title": "Site video", "thumbnail": "https://img.example/x.jpg", "duration": 212, \
        "is_live": false, "_type": "video", "formats": [
        {"format_id": "sb0", "url": "https://img.example/sb.jpg", "ext": "mhtml", "protocol": "mhtml", \
        "vcodec": "none", "acodec": "none"},
        {"format_id": "140", "url": "https://cdn.example/140", "ext": "m4a", "protocol": "https", \
        "vcodec": "none", "acodec": "mp4a.40.2", "tbr": 129.5},
        {"format_id": "251", "url": "https://cdn.example/251", "ext": "webm", "protocol": "https", \
        "vcodec": "none", "acodec": "opus", "tbr": 135.0},
        {"format_id": "18", "url": "https://cdn.example/18", "ext": "mp4", "protocol": "https", \
        "vcodec": "avc1.42001E", "acodec": "mp4a.40.2", "height": 360, "tbr": 600.1},
        {"format_id": "95", "url": "https://cdn.example/95.m3u8", "ext": "mp4", "protocol": "m3u8_native", \
        "vcodec": "avc1.4D401F", "acodec": "mp4a.40.2", "height": 720, "tbr": 2500.0},
        {"format_id": "96", "url": "https://cdn.example/96.m3u8", "ext": "mp4", "protocol": "m3u8_native", \
        "vcodec": "avc1.640028", "acodec": "mp4a.40.2", "height": 1080, "tbr": 4500.0},
        {"format_id": "313", "url": "https://cdn.example/313", "ext": "webm", "protocol": "https", \
        "vcodec": "vp9", "acodec": "none", "height": 2160, "tbr": 18000.0},
        {"format_id": "401", "url": "https://cdn.example/401", "ext": "mp4", "protocol": "https", \
        "vcodec": "av01.0.12M.08", "acodec": "opus", "height": 2160, "tbr": 16000.0}]}
        """

    @Test func aPageWithAVideoElementIsItsOneFormat() throws {
        let video = try WebVideo(ytDlpJSON: Array(Self.generic.utf8), page: Self.page)
        #expect(video.title == "A film on a page (1)")
        #expect(video.thumbnailURL?.absoluteString == "http://127.0.0.1:18777/poster.jpg")
        #expect(video.formats.count == 1)
        let format = try #require(video.bestFormat(for: .chromecast))
        #expect(format.url.absoluteString == "http://127.0.0.1:18777/film.mp4")
        #expect(format.contentType == "video/mp4")
        #expect(format.videoCodec == nil && format.audioCodec == nil)
        #expect(format.httpHeaders == ["User-Agent": "Mozilla/5.0", "Referer": "http://127.0.0.1:18777/page.html"])
    }

    /// ffmpeg fetches a web format with its site's headers, one per line;
    /// a header with a line break in it (it would end the request's header
    /// block) is left out; a file gets no network option.
    @Test func aWebInputSendsItsHeadersAndAFileNone() throws {
        let input = MediaInput.web(
            URL(string: "https://cdn.example/v/film.mkv")!,
            headers: ["Referer": "https://videos.example/watch/1", "Cookie": "a=1", "X-Evil": "1\r\nHost: other"])
        #expect(input.name == "film.mkv" && input.isRemote)
        let options = input.options
        let block = try #require(options.firstIndex(of: "-headers").map { options[$0 + 1] })
        #expect(block == "Cookie: a=1\r\nReferer: https://videos.example/watch/1\r\n")
        #expect(options.contains("-reconnect"))
        let plan = try ConversionPlan(
            media: try ProbedMedia(ffprobeJSON: Array(WebVideoTests.mpeg4Film.utf8)), fileName: "film.mkv",
            device: .chromecast)
        let arguments = plan.ffmpegArguments(input: input, output: "/tmp/out.mp4")
        let reading = try #require(arguments.firstIndex(of: "-i"))
        #expect(arguments[reading + 1] == "https://cdn.example/v/film.mkv")
        #expect(arguments[..<reading].contains("-headers"), "the headers come before the input they apply to")
        let file = MediaInput.file(URL(fileURLWithPath: "/films/Film.mkv"))
        #expect(file.options.isEmpty && file.location == "/films/Film.mkv" && !file.isRemote)
    }

    /// ffprobe's answer for an MPEG-4 Part 2 film with MP3 in Matroska.
    static let mpeg4Film = """
        {"streams": [{"index": 0, "codec_name": "mpeg4", "codec_type": "video", "width": 320, "height": 180,         "pix_fmt": "yuv420p", "r_frame_rate": "25/1"}, {"index": 1, "codec_name": "mp3", "codec_type": "audio",         "channels": 2, "sample_rate": "48000"}], "format": {"format_name": "matroska,webm", "duration": "3.000000"}}
        """

    /// Picture and sound together, in codecs the device decodes, as large as
    /// it shows: H.264 HLS 1080p on a Chromecast (its AV1 2160p and VP9-only
    /// formats are not for it), AV1 2160p on a Google TV Streamer, the sound
    /// alone on a speaker; storyboards are never chosen.
    @Test func eachDeviceGetsTheBestFormatItPlays() throws {
        let video = try WebVideo(ytDlpJSON: Array(Self.site.utf8), page: Self.page)
        #expect(video.duration == 212)
        #expect(video.formats.map(\.id) == ["140", "251", "18", "95", "96", "313", "401"])
        let chromecast = try #require(video.bestFormat(for: .chromecast))
        #expect(chromecast.id == "96")
        #expect(chromecast.isHLS && chromecast.contentType == "application/vnd.apple.mpegurl")
        #expect(chromecast.videoCodec == "h264" && chromecast.audioCodec == "aac")
        #expect(video.bestFormat(for: .googleTVStreamer)?.id == "401")
        #expect(video.bestFormat(for: .nestHub)?.id == "95")
        let speaker = try #require(video.bestFormat(for: .speaker))
        #expect(["140", "251"].contains(speaker.id))
        #expect(speaker.videoCodec == "none")
    }

    /// Garbage, a playlist, and a page whose only formats Cast cannot fetch are typed errors.
    @Test func whatIsNotOneFetchableVideoIsATypedError() {
        for json in [
            "not json", "[]", #"{"_type": "playlist", "entries": []}"#,
            #"{"formats": [{"url": "rtmp://live.example/x", "protocol": "rtmp"}]}"#,
            #"{"formats": "many", "url": "file:///etc/passwd"}"#,
        ] {
            #expect(throws: MediaServerError.self, "\(json)") {
                try WebVideo(ytDlpJSON: Array(json.utf8), page: Self.page)
            }
        }
        #expect(throws: MediaServerError.self) {
            try WebVideo(ytDlpJSON: [UInt8](repeating: 0x20, count: ProbedMedia.maximumJSONSize + 1), page: Self.page)
        }
    }
}
