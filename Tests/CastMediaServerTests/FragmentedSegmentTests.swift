import CastTestSupport
import Foundation
import Testing

@testable import CastMediaServer

/// A copied HEVC film served as HLS in fragmented MP4 segments after an
/// initialization segment, read by ffprobe and ffmpeg.
extension SegmentedConversionTests {
    /// 60 s of HEVC with a key frame every 2 s and AAC sound, in Matroska
    /// (a Chromecast Ultra plays the video, not the container): made once
    /// for the suite's tests (x265 at its fastest preset), its folder left
    /// in the temporary directory.
    static let hevcFilm = Task {
        try await TestFilm.make(
            "film.mkv", seconds: 60,
            video: [
                "-pix_fmt", "yuv420p", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                "log-level=none:keyint=50:min-keyint=50",
            ],
            audio: TestFilm.aac)
    }

    /// The playlist names the initialization segment and lists the whole
    /// film at once (ffprobe reads 60 s); ffmpeg reads from 80 %; a segment
    /// read after the initialization segment holds the seconds it lists.
    @Test func aCopiedHEVCFilmIsServedAsFragmentedMP4Segments() async throws {
        let film = try await Self.hevcFilm.value
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecastUltra)
        #expect(plan.video?.transcodes == false && plan.segmentsAreFragmentedMP4 && plan.isSegmentable)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try await server.serve(file: film, segmenting: plan, media: media, tools: Self.tools)
        let playlist = String(decoding: try await curl(url.absoluteString).body, as: UTF8.self)
        #expect(playlist.contains("#EXT-X-VERSION:7\n") && playlist.contains("#EXT-X-MAP:URI=\"init.mp4\"\n"))
        #expect(playlist.contains("\n0.m4s\n") && playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist)")

        let probed = try await CommandOutput.of(
            [
                "/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                url.absoluteString,
            ])
        let duration = try #require(Double(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(duration - 60) < 1, "ffprobe: \(duration) s \(probed.stderr)")

        let decoded = try await CommandOutput.of(
            [
                "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-ss", "48", "-i", url.absoluteString, "-frames:v", "1",
                "-f", "null", "-",
            ])
        #expect(decoded.status == 0, "\(decoded.stderr)")

        // Segment 8 (48–54 s: key frames every 2 s, cut at the first one 6 s on) after the header.
        let base = url.deletingLastPathComponent()
        let header = try await curl(base.appendingPathComponent("init.mp4").absoluteString)
        let segment = try await curl(base.appendingPathComponent("8.m4s").absoluteString)
        #expect(header.status == 200 && segment.status == 200)
        #expect(header.headers["content-type"] == "video/mp4")
        let joined = FileManager.default.temporaryDirectory.appendingPathComponent("joined-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: joined) }
        try Data(header.body + segment.body).write(to: joined)
        let times = try await Self.videoPacketTimes(joined.path)
        let first = try #require(times.first)
        let last = try #require(times.last)
        // The film's own times, a second later (the segments' timestamp offset).
        #expect(abs(first - 49) < 0.1 && abs(last - 54.96) < 0.1, "segment 8 holds \(first)…\(last) s")
        #expect(try await curl(base.appendingPathComponent("8.ts").absoluteString).status == 404)
        await server.stop()
    }

    /// While a run copies, its file keeps only what was not yet read:
    /// what was gathered into segments is punched out of it. The film comes
    /// through a pipe the test fills half at first, so the run is caught
    /// in the middle (a copy is otherwise done before anyone looks).
    @Test func whatWasGatheredIntoSegmentsIsFreedFromTheRunsFile() async throws {
        let film = try await Self.hevcFilm.value
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("through-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecastUltra)
        let keyFrames = try await Self.tools.keyFrames(of: .file(film), stream: try #require(plan.video).stream.index)
        let pipe = folder.appendingPathComponent("through.mkv")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let conversion = try SegmentedConversion(
            input: .file(pipe), plan: plan, layout: SegmentLayout(duration: 60, keyFrames: keyFrames),
            startTime: media.startTime, ffmpeg: try #require(Self.tools.ffmpeg),
            folder: folder.appendingPathComponent("work"))
        let bytes = [UInt8](try Data(contentsOf: film))
        // Signalled once the test has looked; the writer's wait has a deadline that only ends it.
        let rest = DispatchSemaphore(value: 0)
        let writing = Task {
            try await onOwnThread {
                let descriptor = open(pipe.path, O_WRONLY | O_CLOEXEC)
                guard descriptor >= 0 else { return false }
                defer { close(descriptor) }
                var written = 0
                var released = false
                while written < bytes.count {
                    // The first half, then the rest once the test has looked.
                    if written >= bytes.count / 2, !released {
                        guard rest.wait(timeout: .now() + 60) == .success else { return false }
                        released = true
                    }
                    let end = written < bytes.count / 2 ? bytes.count / 2 : bytes.count
                    let count = bytes[written..<end].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                    guard count > 0 else { return false }
                    written += count
                }
                return true
            }
        }
        #expect(try await conversion.segment(0) != nil)
        let gathered = try await waitUntil(within: .seconds(30)) { conversion.progress.made >= 2 }
        #expect(gathered, "\(conversion.progress.made) segments made from half the film")
        var status = stat()
        #expect(stat(folder.appendingPathComponent("work/run-1/stream.mp4").path, &status) == 0)
        let allocated = Int(status.st_blocks) * 512
        #expect(
            status.st_size > 100_000 && allocated < Int(status.st_size) / 2,
            "\(allocated) of \(status.st_size) bytes held")
        print("the run's file: \(allocated) of \(status.st_size) bytes held")
        rest.signal()
        #expect(try await writing.value)
        #expect(try await conversion.segment(9) != nil, "the rest of the film is made")
        conversion.cancel()
    }
}
