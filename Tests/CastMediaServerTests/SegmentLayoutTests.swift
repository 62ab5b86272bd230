import CastEmulator
import Testing

@testable import CastMediaServer

/// Where a converted film's HLS segments are cut, and the playlist that
/// lists them: pure, and read back by the emulator's HLS reader (what a
/// receiver's player reads).
@Suite(.timeLimit(.minutes(1))) struct SegmentLayoutTests {
    @Test func aTranscodedFilmIsCutEverySixSecondsAndASliverJoinsTheLast() {
        let thirty = SegmentLayout(duration: 30)
        #expect(thirty.starts == [0, 6, 12, 18, 24])
        #expect(thirty.bounds(of: 4) == (start: 24, end: 30))
        // 0.3 s left over is not a segment of its own; 1 s is.
        #expect(SegmentLayout(duration: 30.3).starts == [0, 6, 12, 18, 24])
        #expect(SegmentLayout(duration: 30.3).bounds(of: 4).end == 30.3)
        #expect(SegmentLayout(duration: 31).starts == [0, 6, 12, 18, 24, 30])
        #expect(SegmentLayout(duration: 4).starts == [0])
        #expect(SegmentLayout(duration: .nan).starts == [0])
    }

    @Test func aCopiedVideoIsCutAtTheFirstKeyFrameSixSecondsOn() {
        // x264 in Matroska with a key frame every 2.5 s, as ffprobe lists them (B-frames shift them 6 ms).
        let keyFrames = stride(from: 0.006, to: 30, by: 2.5).map { $0 }
        let layout = SegmentLayout(duration: 30, keyFrames: keyFrames)
        #expect(layout.starts == [0, 7.506, 15.006, 22.506])
        #expect(layout.index(containing: 15.005) == 1)
        #expect(layout.index(containing: 15.006) == 2)
        #expect(layout.index(containing: -3) == 0)
        #expect(layout.index(containing: 99) == 3)
        // Out of order, outside the film, or not numbers: ignored.
        let messy = SegmentLayout(duration: 20, keyFrames: [.nan, -4, 8, 7, 25, .infinity, 14.5, 19.8])
        #expect(messy.starts == [0, 8, 14.5])
    }

    @Test func thePlaylistListsEverySegmentAndEnds() throws {
        let layout = SegmentLayout(duration: 13)
        let text = layout.playlist { "\($0).ts" }
        #expect(
            text == """
                #EXTM3U
                #EXT-X-VERSION:3
                #EXT-X-TARGETDURATION:6
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXTINF:6.000000,
                0.ts
                #EXTINF:6.000000,
                1.ts
                #EXTINF:1.000000,
                2.ts
                #EXT-X-ENDLIST

                """)
        // What the emulator's player reads of it.
        let read = try HLSPlaylist(bytes: Array(text.utf8))
        #expect(read.isComplete)
        #expect(read.segments.map(\.uri) == ["0.ts", "1.ts", "2.ts"])
        #expect(read.duration == 13)
        #expect(read.segment(at: 12.5)?.uri == "2.ts")
        // A copied video's longer segments round up into the target duration (RFC 8216 §4.3.3.1).
        let copied = SegmentLayout(duration: 30, keyFrames: [0, 7.6, 15.2, 22.8])
        #expect(copied.playlist { "\($0).ts" }.contains("#EXT-X-TARGETDURATION:8\n"))
    }

    @Test func theEmulatorReadsAMasterPlaylistsVariantsAndRefusesWhatIsNotOne() throws {
        let master = try HLSPlaylist(
            bytes: Array("#EXTM3U\r\n#EXT-X-STREAM-INF:BANDWIDTH=800000\r\nlow/index.m3u8\r\n".utf8))
        #expect(master.variants == ["low/index.m3u8"])
        #expect(master.segments.isEmpty)
        #expect(throws: HLSPlaylist.ReadError.notAPlaylist) { try HLSPlaylist(bytes: Array("<html>".utf8)) }
        #expect(throws: HLSPlaylist.ReadError.empty) { try HLSPlaylist(bytes: Array("#EXTM3U\n".utf8)) }
        #expect(throws: HLSPlaylist.ReadError.tooLarge) {
            try HLSPlaylist(bytes: [UInt8](repeating: 35, count: HLSPlaylist.maximumBytes + 1))
        }
        // A duration that is not a number counts as 0; the segment is kept.
        let odd = try HLSPlaylist(bytes: Array("#EXTM3U\n#EXTINF:abc,\na.ts\n#EXTINF:2,\nb.ts\n".utf8))
        #expect(odd.segments.map(\.start) == [0, 0])
        #expect(!odd.isComplete)
    }

    /// The master playlist of a film with two sounds, as the server writes
    /// it, read as the emulator reads one: both renditions with their
    /// language, name and default, the variant naming their group; quoted
    /// values keep their commas, an unterminated quote ends the list.
    @Test func aMasterPlaylistsSoundRenditionsAreWrittenAndReadBack() throws {
        func sound(_ index: Int, _ language: String, title: String? = nil, codec: String = "aac") -> ProbedMedia.Stream
        {
            ProbedMedia.Stream(index: index, kind: .audio, codec: codec, language: language, title: title)
        }
        let video = ProbedMedia.Stream(index: 0, kind: .video, codec: "h264", profile: "High", level: 40)
        let media = ProbedMedia(
            container: "matroska,webm", duration: .seconds(60),
            streams: [video, sound(1, "eng", title: "English, 5.1", codec: "ac3"), sound(2, "fre")])
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecast, audioStream: 2)
        #expect(plan.hasSoundRenditions)
        let text = MasterPlaylist.text(of: plan)
        #expect(text.contains("CODECS=\"avc1.640028,mp4a.40.2\""), "\(text)")
        let read = try HLSPlaylist(bytes: Array(text.utf8))
        #expect(read.variants == [MasterPlaylist.videoName] && read.variantAudioGroups == ["sound"])
        #expect(read.audioRenditions.map(\.name) == ["English, 5.1", "fr"])
        #expect(read.audioRenditions.map(\.language) == ["en", "fr"])
        #expect(read.audioRenditions.map(\.uri) == ["rendition-a1.m3u8", "rendition-a2.m3u8"])
        // The sound asked for is the default, and a player takes it first.
        #expect(read.audioRenditions.map(\.isDefault) == [false, true])
        #expect(read.firstVariantSounds.map(\.uri) == ["rendition-a2.m3u8", "rendition-a1.m3u8"])

        #expect(HLSPlaylist.attributes("A=1,B=\"x,y\",C=\"open") == ["A": "1", "B": "x,y", "C": "open"])
        #expect(HLSPlaylist.attributes("junk") == [:])
        // A rendition of another type, or without a URI, is not a sound to fetch.
        let other = try HLSPlaylist(
            bytes: Array(
                """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="x",URI="s.m3u8"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="muxed"
                #EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO="a"
                v.m3u8
                """.utf8))
        #expect(other.audioRenditions.isEmpty && other.firstVariantSounds.isEmpty)
    }

    @Test func ffprobesKeyFrameLinesAreReadAsTheyCome() {
        let times = KeyFrameTimes()
        times.feed(Array("0.000000,K_\n0.040000,__\n2.0".utf8))
        times.feed(Array("00000,K__\nN/A,K_\ngarbage\n\(String(repeating: "9", count: 300)),K_\n4.5,K".utf8))
        times.endLine()
        #expect(times.times == [0, 2, 4.5])
    }
}

/// The fragmented MP4 reader on boxes built here: the header, a fragment
/// with its video's first shown time, the same however the bytes arrive,
/// and files that are not what ffmpeg writes refused.
@Suite(.timeLimit(.minutes(1))) struct FragmentedMP4ReaderTests {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array(type.utf8) + payload
    }

    static func be(_ value: UInt64, _ bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(value >> (8 * $0) & 0xFF) }
    }

    /// A fragment of track `track` decoded at `decode` whose first sample shows `offset` later.
    static func fragment(track: UInt32, decode: UInt64, offset: UInt32) -> [UInt8] {
        let tfhd = Self.box("tfhd", [0, 2, 0, 0] + Self.be(UInt64(track), 4))
        let tfdt = Self.box("tfdt", [1, 0, 0, 0] + Self.be(decode, 8))
        // Data offset, then per sample: duration, size, composition offset.
        let trun = Self.box(
            "trun",
            [0, 0, 0x0B, 0x01] + Self.be(1, 4) + Self.be(100, 4) + Self.be(3_600, 4) + Self.be(10, 4)
                + Self.be(UInt64(offset), 4))
        let moof = Self.box(
            "moof", Self.box("mfhd", [UInt8](repeating: 0, count: 8)) + Self.box("traf", tfhd + tfdt + trun))
        return moof + Self.box("mdat", [UInt8](repeating: 7, count: 10))
    }

    @Test func theHeaderAndEachFragmentWithItsVideosFirstTimeAreRead() throws {
        let header =
            Self.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0]) + Self.box("moov", [UInt8](repeating: 0, count: 20))
        let first = Self.fragment(track: 1, decode: 84_690, offset: 7_200)
        let sound = Self.fragment(track: 2, decode: 48_000, offset: 0)
        let file = header + Self.box("free", []) + first + sound
        var whole = FragmentedMP4Reader()
        let parts = try whole.feed(file)
        #expect(parts == [.header(header), .fragment(first, videoTime: 91_890), .fragment(sound, videoTime: nil)])
        // A byte at a time: the same parts.
        var bytes = FragmentedMP4Reader()
        var trickled: [FragmentedMP4Reader.Part] = []
        for byte in file { trickled += try bytes.feed([byte]) }
        #expect(trickled == parts)
    }

    @Test func whatFFmpegDoesNotWriteIsRefused() {
        var reader = FragmentedMP4Reader()
        #expect(throws: FragmentedMP4Reader.ReadError.self) { try reader.feed(Self.box("mdat", [1])) }
        var short = FragmentedMP4Reader()
        #expect(throws: FragmentedMP4Reader.ReadError.self) { try short.feed([0, 0, 0, 4] + Array("moov".utf8)) }
        var early = FragmentedMP4Reader()
        #expect(throws: FragmentedMP4Reader.ReadError.self) {
            try early.feed(Self.fragment(track: 1, decode: 0, offset: 0))
        }
        var huge = FragmentedMP4Reader()
        #expect(throws: FragmentedMP4Reader.ReadError.self) {
            try huge.feed(
                [0, 0, 0, 1] + Array("mdat".utf8) + Self.be(UInt64(FragmentedMP4Reader.maximumBoxSize) + 1, 8))
        }
    }
}
