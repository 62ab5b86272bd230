import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// Files checked with ffprobe and converted with ffmpeg — both real, both
/// also used as the independent judge of what our server sent. One at a
/// time: a test counts this process's conversion folders that hold an MP4,
/// which another of these running beside it would add to (seen under
/// ThreadSanitizer). Each takes the child processes' turn: ffmpeg takes a
/// core, which a real-time test beside it needs.
@Suite(
    .serialized,
    .timeLimit(.minutes(3)),
    .takesTurn(.childProcesses),
    .enabled(if: MediaTools.installed().ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
struct ConversionTests {
    static let tools = MediaTools.installed()

    @Test func ffprobeNamesTheContainerCodecsTagsAndDuration() async throws {
        let film = try await TestFilm.make("film.mkv", video: TestFilm.hevc, audio: TestFilm.ac3, title: "Test Pattern")
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let media = try await Self.tools.probe(film)
        #expect(media.container == "matroska,webm")
        #expect(media.title == "Test Pattern")
        let duration = try #require(media.duration)
        #expect(duration > .milliseconds(1_900) && duration < .milliseconds(2_200))
        #expect(media.video?.codec == "hevc")
        #expect(media.video?.profile == "Main")
        #expect(media.video?.width == 320 && media.video?.height == 180)
        #expect(media.video?.pixelFormat == "yuv420p")
        #expect(media.audio?.codec == "ac3")
        #expect(media.audio?.channels == 2)

        let notMedia = film.deletingLastPathComponent().appendingPathComponent("notes.mp4")
        try Data("not a film".utf8).write(to: notMedia)
        await #expect(throws: MediaServerError.self) { try await Self.tools.probe(notMedia) }
        let none = MediaTools(ffprobe: nil, ffmpeg: nil)
        let error = await #expect(throws: MediaServerError.self) { try await none.probe(film) }
        #expect(error?.code == .probeFailed)
    }

    @Test func aConvertedFileIsServedAsItGrowsThenWithByteRanges() async throws {
        let film = try await TestFilm.make("film.mkv", seconds: 4, video: TestFilm.hevc, audio: TestFilm.ac3)
        let folder = film.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plan = try ConversionPlan(
            media: try await Self.tools.probe(film), fileName: "film.mkv", device: .chromecast)
        #expect(plan.video?.transcodes == true)
        #expect(plan.audio?.transcodes == true)
        #expect(plan.reasons == ["HEVC video", "AC-3 audio", "the Matroska container"])
        // ffmpeg reads the film through a pipe we fill: half of it first, so
        // the conversion is certainly still running while we ask.
        let bytes = try Data(contentsOf: film)
        let pipe = folder.appendingPathComponent("film-pipe.mkv")
        try #require(mkfifo(pipe.path, 0o600) == 0)
        let rest = DispatchSemaphore(value: 0)
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: pipe.path) else { return }
            try? handle.write(contentsOf: bytes.prefix(bytes.count / 2))
            rest.wait()
            try? handle.write(contentsOf: bytes.dropFirst(bytes.count / 2))
            try? handle.close()
        }
        writer.start()
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let ffmpeg = try #require(Self.tools.ffmpeg)
        let url = try server.serve(file: pipe, converting: plan, with: ffmpeg)
        #expect(url.lastPathComponent == "film-pipe.mp4")

        // While ffmpeg runs: the stream from its start, no length, no ranges.
        let head = try await curl(url.absoluteString, ["-I"])
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "video/mp4")
        #expect(head.headers["accept-ranges"] == "none")
        #expect(head.headers["content-length"] == nil)
        #expect(server.conversionProgress(of: url)?.isFinished == false)
        async let fetched = curl(url.absoluteString, ["-H", "Range: bytes=0-65535"])
        // The rest goes to ffmpeg only once the server has begun the growing
        // answer: on a busy machine curl can start after a fixed wait, find
        // the conversion finished, and get a file's 206 instead.
        let asked = ContinuousClock.now + .seconds(30)
        while !server.recentRequests.contains(where: { $0.method == "GET" }), ContinuousClock.now < asked {
            try await Task.sleep(for: .milliseconds(20))
        }
        rest.signal()
        let streamed = try await fetched
        #expect(streamed.status == 200)
        let received = folder.appendingPathComponent("received.mp4")
        try Data(streamed.body).write(to: received)
        // ffprobe judges what we sent: H.264 and AAC in MP4, the whole length.
        let sent = try await Self.tools.probe(received)
        #expect(sent.container.contains("mp4"))
        #expect(sent.video?.codec == "h264")
        #expect(sent.audio?.codec == "aac")
        #expect(sent.audio?.channels == 2)

        var progress = try #require(server.conversionProgress(of: url))
        let deadline = ContinuousClock.now + .seconds(30)
        while !progress.isFinished, progress.failure == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            progress = try #require(server.conversionProgress(of: url))
        }
        #expect(progress.isFinished)
        #expect(progress.failure == nil)
        #expect(progress.converted > .milliseconds(3_500))
        // Finished: a file like any other, byte ranges included; the same bytes as streamed.
        let whole = try await curl(url.absoluteString)
        #expect(whole.status == 200)
        #expect(whole.headers["accept-ranges"] == "bytes")
        // A Bool, so a failure says the sizes rather than printing both films.
        let same = whole.body == streamed.body
        #expect(same, "streamed \(streamed.body.count) bytes, the file has \(whole.body.count)")
        let part = try await curl(url.absoluteString, ["-H", "Range: bytes=100-199"])
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes 100-199/\(whole.body.count)")
        #expect(part.body == Array(whole.body[100...199]))

        // Withdrawn: nothing served, nothing left on disk. This server's working folder is the
        // one of this process that holds an MP4: other suites' servers (HLS conversions, in
        // folders of segments) may be converting in this process at the same time.
        let fileManager = FileManager.default
        let working = try fileManager.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.hasPrefix("cast-media-\(getpid())-") }
            .filter { name in
                let path = NSTemporaryDirectory() + "/" + name
                return ((try? fileManager.contentsOfDirectory(atPath: path)) ?? []).contains { $0.hasSuffix(".mp4") }
            }
        #expect(working.count == 1, "\(working)")
        server.withdraw(url)
        #expect(try await curl(url.absoluteString).status == 404)
        await server.stop()
        let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { working.contains($0) }
        #expect(left.isEmpty)
    }

    /// A film with English and German sound: the German stream chosen is the
    /// one sound of what is served, as ffprobe reads it back.
    @Test func theChosenSoundIsTheOneServed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sound-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let film = folder.appendingPathComponent("two-languages.mkv")
        let made = try await CommandOutput.of(
            [
                try #require(Self.tools.ffmpeg?.path), "-v", "error", "-nostdin", "-f", "lavfi", "-i",
                "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-f",
                "lavfi", "-i", "sine=frequency=880:sample_rate=48000", "-map", "0:v", "-map", "1:a", "-map", "2:a",
                "-t", "2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-c:a", "aac", "-metadata:s:a:0", "language=eng",
                "-metadata:s:a:1", "language=ger", "-y", film.path,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        let media = try await Self.tools.probe(film)
        #expect(media.audio?.language == "eng")
        let german = try #require(media.streams.first { $0.kind == .audio && $0.language == "ger" })
        let plan = try ConversionPlan(
            media: media, fileName: "two-languages.mkv", device: .chromecast, audioStream: german.index)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try server.serve(file: film, converting: plan, with: try #require(Self.tools.ffmpeg))
        #expect(
            try await waitUntil(within: .seconds(30)) {
                server.conversionProgress(of: url).map { $0.isFinished || $0.failure != nil } ?? true
            })
        let served = try await curl(url.absoluteString)
        #expect(served.status == 200)
        let received = folder.appendingPathComponent("received.mp4")
        try Data(served.body).write(to: received)
        let sent = try await Self.tools.probe(received)
        #expect(sent.streams.filter { $0.kind == .audio }.map(\.language) == ["ger"])
        #expect(sent.video?.codec == "h264")
        await server.stop()
    }

    @Test func aConversionThatFailsIsReportedAndAnswered500() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("broken.mkv")
        try Data(repeating: 1, count: 10_000).write(to: broken)
        let plan = try ConversionPlan(
            media: ProbedMedia(
                container: "matroska,webm",
                streams: [ProbedMedia.Stream(index: 0, kind: .video, codec: "hevc", width: 320, height: 180)]),
            fileName: "broken.mkv", device: .chromecast)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        defer { Task { await server.stop() } }
        let url = try server.serve(file: broken, converting: plan, with: try #require(Self.tools.ffmpeg))
        var progress = try #require(server.conversionProgress(of: url))
        let deadline = ContinuousClock.now + .seconds(10)
        while progress.failure == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            progress = try #require(server.conversionProgress(of: url))
        }
        let failure = try #require(progress.failure)
        #expect(failure.hasPrefix("ffmpeg stopped (status "))
        #expect(!progress.isFinished)
        #expect(try await curl(url.absoluteString).status == 500)
        #expect(server.conversionProgress(of: URL(string: "http://127.0.0.1/media/nothing/x.mp4")!) == nil)
    }
}
