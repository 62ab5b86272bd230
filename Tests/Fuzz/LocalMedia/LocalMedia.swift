import CastMediaServer
import Foundation

/// What `cast play` reads from the user's disk and the media server from
/// the network: subtitles (SubRip → WebVTT, WebVTT as it is), playlists
/// (M3U, PLS), `Range` headers, and what ffprobe says of a file (which a
/// hostile file shapes), planned for every device kind. The first byte
/// picks the parser; the rest is its input.
func fuzzLocalMedia(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    switch selector % 6 {
    case 0:
        if let vtt = try? WebVTT(srt: input) {
            // What the converter writes, WebVTT reads back.
            precondition((try? WebVTT(vtt: Array(vtt.text.utf8)))?.cueCount == vtt.cueCount)
        }
    case 1:
        _ = try? WebVTT(vtt: input)
    case 2:
        _ = try? Playlist(bytes: input, kind: "m3u", folder: URL(fileURLWithPath: "/music"))
    case 3:
        _ = try? Playlist(bytes: input, kind: "pls", folder: URL(fileURLWithPath: "/music"))
    case 5:
        guard let media = try? ProbedMedia(ffprobeJSON: input) else { return }
        for model in [
            "Chromecast", "Chromecast Ultra", "Chromecast HD", "Google TV Streamer", "Google Nest Hub", "Nest Audio",
        ] {
            guard let plan = try? ConversionPlan(media: media, fileName: "film.mkv", device: .forModel(model)) else {
                continue
            }
            precondition(plan.video != nil || plan.audio != nil)
            precondition(plan.ffmpegArguments(input: "in", output: "out").last == "out")
        }
    default:
        let header = String(decoding: input, as: UTF8.self)
        for size in [0, 1, 1_000, Int(Int32.max) * 4] {
            if case .part(let range) = ByteRange(header: header, size: size) {
                precondition(range.lowerBound >= 0 && range.upperBound < size)
            }
        }
    }
}
