import CastTestSupport
import Foundation
import Testing

@testable import CastMediaServer

/// A film with two sounds served as HLS: a master playlist with one audio
/// rendition per sound, read by ffprobe and ffmpeg (independent HLS clients).
extension SegmentedConversionTests {
    /// The pitch of mono 16-bit samples at 48 kHz: its rising zero crossings per second.
    static func pitch(_ bytes: [UInt8]) -> Double {
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
        var rising = 0
        for index in 1..<max(1, samples.count) where samples[index - 1] < 0 && samples[index] >= 0 { rising += 1 }
        return Double(rising) / (Double(samples.count) / 48_000)
    }

    /// The master playlist names both sounds (language, name, the default)
    /// and the video variant that refers to them; ffprobe lists the video
    /// and both renditions with their languages; ffmpeg plays the French
    /// one from 80 %.
    @Test func aFilmWithTwoSoundsIsServedWithEachAsAnAudioRendition() async throws {
        let film = try await TestFilm.twoSounds()
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecast)
        #expect(plan.soundRenditions.map(\.stream.language) == ["eng", "fre"])
        #expect(plan.soundRenditions.map(\.transcodes) == [true, true], "AC-3 becomes AAC")
        let url = try await server.serve(file: film, segmenting: plan, media: media, tools: Self.tools)
        let master = String(decoding: try await curl(url.absoluteString).body, as: UTF8.self)
        let renditions = master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }
        #expect(renditions.count == 2, "\(master)")
        #expect(renditions.first?.contains("LANGUAGE=\"en\",NAME=\"en\",DEFAULT=YES") == true, "\(master)")
        #expect(renditions.last?.contains("LANGUAGE=\"fr\",NAME=\"Français\",DEFAULT=NO") == true, "\(master)")
        #expect(master.contains("AUDIO=\"sound\"\nrendition-video.m3u8\n"), "\(master)")
        let french = try #require(server.soundRenditions(of: url).last)
        #expect(french.lastPathComponent == "rendition-a2.m3u8")
        let frenchPlaylist = String(decoding: try await curl(french.absoluteString).body, as: UTF8.self)
        #expect(frenchPlaylist.contains("\na2-0.ts\n") && frenchPlaylist.hasSuffix("#EXT-X-ENDLIST\n"))

        let probed = try await CommandOutput.of(
            [
                "/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream=codec_type:stream_tags=language", "-of",
                "json", url.absoluteString,
            ])
        struct Probed: Decodable {
            struct Stream: Decodable {
                var codecType: String
                var tags: [String: String]?
                enum CodingKeys: String, CodingKey {
                    case codecType = "codec_type"
                    case tags
                }
            }
            var streams: [Stream]
        }
        let streams = try JSONDecoder().decode(Probed.self, from: Data(probed.stdout.utf8)).streams
            .map { $0.codecType + ($0.tags?["language"].map { ",\($0)" } ?? "") }.sorted()
        #expect(streams == ["audio,en", "audio,fr", "video"], "ffprobe: \(probed.stdout) \(probed.stderr)")

        let pcm = film.deletingLastPathComponent().appendingPathComponent("french.raw")
        let decoded = try await CommandOutput.of(
            [
                "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-ss", "29", "-i", french.absoluteString, "-t", "1",
                "-f", "s16le", "-ac", "1", "-ar", "48000", "-y", pcm.path,
            ])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let pitch = Self.pitch([UInt8](try Data(contentsOf: pcm)))
        #expect(abs(pitch - 880) < 10, "the French sound from 29 s: \(pitch) Hz")
        await server.stop()
    }
}

extension SegmentedConversionTests {
    /// A copied HEVC film with two AAC sounds: the video in fragmented MP4
    /// segments, each sound a rendition of fragmented MP4 segments after its
    /// own initialization segment (both sounds copied, not converted).
    /// ffprobe lists the video and both sounds from the master playlist; a
    /// French segment read after its header holds the seconds its playlist
    /// lists, at the French sound's pitch.
    @Test func aCopiedHEVCFilmWithTwoSoundsServesEachAsAFragmentedMP4Rendition() async throws {
        let hevc = TestFilm.hevc + ["-preset", "ultrafast", "-x265-params", "log-level=none:keyint=50:min-keyint=50"]
        let film = try await TestFilm.twoSounds(seconds: 24, video: hevc, audio: TestFilm.aac)
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecastUltra)
        #expect(plan.segmentsAreFragmentedMP4 && plan.hasSoundRenditions)
        #expect(plan.soundRenditions.map(\.transcodes) == [false, false], "AAC is copied")
        let url = try await server.serve(file: film, segmenting: plan, media: media, tools: Self.tools)
        let master = String(decoding: try await curl(url.absoluteString).body, as: UTF8.self)
        #expect(master.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") }.count == 2)
        let french = try #require(server.soundRenditions(of: url).last)
        let frenchPlaylist = String(decoding: try await curl(french.absoluteString).body, as: UTF8.self)
        #expect(frenchPlaylist.contains("#EXT-X-MAP:URI=\"a2-init.mp4\"\n") && frenchPlaylist.contains("\na2-0.m4s\n"))
        let video = String(
            decoding: try await curl(
                url.deletingLastPathComponent().appendingPathComponent("rendition-video.m3u8")
                    .absoluteString
            ).body, as: UTF8.self)
        #expect(video.contains("#EXT-X-MAP:URI=\"init.mp4\"\n") && video.contains("\n0.m4s\n"), "\(video)")

        let probed = try await CommandOutput.of(
            [
                "/usr/bin/ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "json",
                url.absoluteString,
            ])
        let listed = try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [String: Any]
        let streams = ((listed?["streams"] as? [[String: Any]]) ?? []).map {
            "\($0["codec_name"] ?? "-"),\($0["codec_type"] ?? "-")"
        }
        #expect(
            streams.sorted() == ["aac,audio", "aac,audio", "hevc,video"], "ffprobe: \(probed.stdout) \(probed.stderr)")

        // Segment 2 (12–18 s: key frames every 2 s, cut 6 s apart) of the French sound after its header,
        // read as a file: ffmpeg 5.1's HLS demuxer misreads an audio-only fragmented MP4 media playlist
        // (its own HLS muxer's too, tried: AAC errors from the start, nothing after a seek).
        let base = url.deletingLastPathComponent()
        let header = try await curl(base.appendingPathComponent("a2-init.mp4").absoluteString)
        let segment = try await curl(base.appendingPathComponent("a2-2.m4s").absoluteString)
        #expect(header.status == 200 && segment.status == 200 && segment.headers["content-type"] == "video/mp4")
        let joined = film.deletingLastPathComponent().appendingPathComponent("french-2.mp4")
        try Data(header.body + segment.body).write(to: joined)
        let times = try await CommandOutput.of(
            [
                "/usr/bin/ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts_time", "-of",
                "csv=p=0", joined.path,
            ]
        ).stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }
        let first = try #require(times.min())
        let last = try #require(times.max())
        // The film's own times, a second later (the segments' timestamp offset); a fragment is 0.1 s.
        #expect(abs(first - 13) < 0.15 && abs(last - 19) < 0.15, "French segment 2 holds \(first)…\(last) s")
        let pcm = film.deletingLastPathComponent().appendingPathComponent("french.raw")
        let decoded = try await CommandOutput.of(
            [
                "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-i", joined.path, "-f", "s16le", "-ac", "1", "-ar",
                "48000", "-y", pcm.path,
            ])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let pitch = Self.pitch([UInt8](try Data(contentsOf: pcm)))
        #expect(abs(pitch - 880) < 10, "French segment 2: \(pitch) Hz")
        await server.stop()
    }
}
