import CastStreaming
import Testing

/// A picture size, a latency and a list of codecs as a person writes them
/// (`--max-size`, `--latency`, `--codecs`, a settings file), read back from their own text.
@Suite(.timeLimit(.minutes(1))) struct ConfigurationTextTests {
    typealias Resolution = RemoteDisplayConfiguration.Resolution
    typealias Latency = RemoteDisplayConfiguration.Latency

    @Test func aSizeIsWidthByHeight() {
        #expect(Resolution("1280x720") == .hd720)
        #expect(Resolution("1920X1080") == .hd1080)
        #expect(Resolution("640×360") == Resolution(width: 640, height: 360))
        #expect(Resolution(Resolution.hd720.description) == .hd720)
        for text in ["", "1280", "1280x", "x720", "0x720", "-2x4", "1280x720x3", "wide x tall", "1e3x720"] {
            #expect(Resolution(text) == nil, "\(text)")
        }
    }

    @Test func codecsAreAListInTheOrderPreferred() {
        #expect(VideoCodec.list("vp9,vp8") == [.vp9, .vp8])
        #expect(VideoCodec.list("H264, av1,VP8") == [.h264, .av1, .vp8])
        for text in ["", ",", "vp9,vp9", "hevc", "vp9,hevc", "vp 9x"] {
            #expect(VideoCodec.list(text) == nil, "\(text)")
        }
    }

    @Test func aLatencyIsANameOrMilliseconds() {
        #expect(Latency("low") == .low)
        #expect(Latency("Normal") == .normal)
        #expect(Latency("SMOOTH") == .smooth)
        #expect(Latency("250") == .fixed(.milliseconds(250)))
        #expect(Latency("5000") == .fixed(.seconds(5)))
        for latency in [Latency.low, .normal, .smooth, .fixed(.milliseconds(90))] {
            #expect(Latency(latency.description) == latency)
        }
        for text in ["", "0", "5001", "-5", "fast", "250ms", "1.5"] {
            #expect(Latency(text) == nil, "\(text)")
        }
    }
}
