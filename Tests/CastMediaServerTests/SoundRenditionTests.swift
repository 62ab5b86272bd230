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
