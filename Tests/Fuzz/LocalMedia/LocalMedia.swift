import CastEmulator
import CastMediaServer
import Foundation

/// What `cast play` reads from the user's disk and the media server from
/// the network: subtitles (SubRip → WebVTT, WebVTT as it is), playlists
/// (M3U, PLS), `Range` headers, and what ffprobe says of a file (which a
/// hostile file shapes), planned for every device kind; ffprobe's key-frame
/// list cut into an HLS layout, whose playlist the emulator's HLS reader
/// must read back segment for segment; and any playlist that reader is
/// given. The first byte picks the parser; the rest is its input.
func fuzzLocalMedia(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    // 0xFF: yt-dlp's answer for a web page (kept apart so the older seeds keep their parsers).
    if selector == 0xFF {
        fuzzWebVideo(input)
        return
    }
    // 0xFE: the fragmented MP4 ffmpeg writes for HEVC segments, read whole and in two pieces alike.
    if selector == 0xFE {
        fuzzFragmentedMP4(input)
        return
    }
    switch selector % 8 {
    case 6:
        let times = KeyFrameTimes()
        times.feed(input)
        times.endLine()
        let duration = times.times.last.map { $0 + 3 } ?? Double(input.count)
        let layout = SegmentLayout(duration: duration, keyFrames: times.times.sorted())
        guard layout.duration < 1e7, layout.count < 10_000 else { return }
        let read = try? HLSPlaylist(bytes: Array(layout.playlist { "\($0).ts" }.utf8))
        precondition(read?.segments.count == layout.count && read?.isComplete == true)
        for index in 0..<layout.count {
            let bounds = layout.bounds(of: index)
            precondition(bounds.start <= bounds.end && layout.index(containing: bounds.start) == index)
        }
    case 7:
        guard let playlist = try? HLSPlaylist(bytes: input) else { return }
        precondition(
            playlist.audioRenditions.count <= 64 && playlist.variantAudioGroups.count == playlist.variants.count)
        precondition(playlist.firstVariantSounds.allSatisfy { playlist.audioRenditions.contains($0) })
        if let segment = playlist.segment(at: playlist.duration / 2) {
            precondition(playlist.segments.contains(segment))
        }
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

/// yt-dlp's JSON, which a hostile page shapes: whatever it holds, every
/// format read has an http(s) URL, and the choice for each device is one of them.
private func fuzzWebVideo(_ input: [UInt8]) {
    let page = URL(fileURLWithPath: "/page.html")
    guard let video = try? WebVideo(ytDlpJSON: input, page: page) else { return }
    precondition(!video.formats.isEmpty && video.formats.count <= WebVideo.maximumFormats)
    precondition(video.formats.allSatisfy { ["http", "https"].contains($0.url.scheme ?? "") })
    for device in [CastMediaSupport.chromecast, .googleTVStreamer, .speaker] {
        if let chosen = video.bestFormat(for: device) { precondition(video.formats.contains(chosen)) }
    }
}

/// The fragmented MP4 reader: what it reads of a file is the same however
/// the file is cut into chunks, and an error is an error either way.
func fuzzFragmentedMP4(_ input: [UInt8]) {
    var whole = FragmentedMP4Reader()
    var pieces = FragmentedMP4Reader()
    let cut = input.isEmpty ? 0 : Int(input[0]) % (input.count + 1)
    let read = try? whole.feed(input)
    var split: [FragmentedMP4Reader.Part]?
    if let first = try? pieces.feed(input[..<cut]), let second = try? pieces.feed(input[cut...]) {
        split = first + second
    }
    precondition(read == split || read == nil || split == nil)
}
