import CastTestSupport
import Foundation
import Testing

@testable import CastMediaServer

/// A film that needs converting, served as HLS with segments made on
/// demand, read by independent HLS clients — ffprobe and ffmpeg, fetching
/// the playlist and segments over a real socket — and by curl. Each takes
/// the child processes' turn: ffmpeg converting takes a core, and beside
/// these a screen-capture test decoded 56 of its 60 pictures.
@Suite(
    .serialized,
    .timeLimit(.minutes(4)),
    .takesTurn(.childProcesses),
    .enabled(if: MediaTools.installed().ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
struct SegmentedConversionTests {
    static let tools = MediaTools.installed()

    /// Two minutes of MPEG-4 Part 2 video (transcoded for every device) and AC-3 sound, in Matroska.
    static func film(seconds: Int = 120) async throws -> URL {
        try await TestFilm.make("film.mkv", seconds: seconds, video: TestFilm.mpeg4, audio: TestFilm.ac3)
    }

    /// Serves `film` as HLS for a first-generation Chromecast.
    static func serve(_ film: URL, on server: MediaServer) async throws -> URL {
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: film.lastPathComponent, device: .chromecast)
        #expect(plan.isSegmentable)
        return try await server.serve(file: film, segmenting: plan, media: media, tools: Self.tools)
    }

    /// A conversion of a two-minute `film` for a first-generation Chromecast, written into `work`
    /// beside it, as the server would make one.
    static func conversion(
        of film: URL, ahead: Int = 8, kept: Int = 24, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> SegmentedConversion {
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecast)
        return try SegmentedConversion(
            input: .file(film), plan: plan, layout: SegmentLayout(duration: 120), startTime: media.startTime,
            ffmpeg: try #require(Self.tools.ffmpeg), folder: Self.work(of: film), ahead: ahead, kept: kept,
            clock: clock)
    }

    /// Where ``conversion(of:ahead:kept:clock:)`` writes.
    static func work(of film: URL) -> URL { film.deletingLastPathComponent().appendingPathComponent("work") }

    /// The video packets' presentation times, sorted, as ffprobe reads them from `input`.
    static func videoPacketTimes(_ input: String, _ options: [String] = []) async throws -> [Double] {
        let run = try await CommandOutput.of(
            ["/usr/bin/ffprobe", "-v", "error"] + options + [
                "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", input,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: .punctuationCharacters))
        }
        .sorted()
    }

    /// The playlist lists the whole film before a single segment is made,
    /// and ffprobe reads its duration from it.
    @Test func thePlaylistHasTheWholeDurationBeforeAnySegmentIsMade() async throws {
        let film = try await Self.film(seconds: 60)
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try await Self.serve(film, on: server)
        #expect(url.lastPathComponent == "film.m3u8")
        let playlist = try await curl(url.absoluteString)
        #expect(playlist.status == 200)
        #expect(playlist.headers["content-type"] == "application/vnd.apple.mpegurl")
        // Nothing converted yet: ffmpeg starts at the first segment asked for.
        #expect(server.segmentedProgress(of: url)?.runStarts == [])
        let text = String(decoding: playlist.body, as: UTF8.self)
        let durations = text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst(8).prefix { $0 != "," }) }
        #expect(durations.count == 10)
        #expect(abs(durations.reduce(0, +) - 60) < 0.1)
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))

        let probed = try await CommandOutput.of(
            [
                "/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                url.absoluteString,
            ])
        let duration = try #require(Double(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(duration - 60) < SegmentLayout.targetLength, "ffprobe: \(duration) s")
        #expect(
            try await curl(url.deletingLastPathComponent().appendingPathComponent("10.ts").absoluteString).status == 404
        )
        #expect(
            try await curl(url.deletingLastPathComponent().appendingPathComponent("x.ts").absoluteString).status == 404)
        await server.stop()
    }

    /// Served with where the receiver will start, the conversion begins
    /// there at once, before any request: the segment is then served by
    /// that run, no other started.
    @Test func aFilmServedWithItsStartBeginsConvertingThereAtOnce() async throws {
        let film = try await Self.film(seconds: 60)
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let media = try await Self.tools.probe(film)
        let plan = try ConversionPlan(media: media, fileName: film.lastPathComponent, device: .chromecast)
        let url = try await server.serve(file: film, segmenting: plan, media: media, tools: Self.tools, startingAt: 31)
        #expect(server.segmentedProgress(of: url)?.runStarts == [5])
        let segment = try await curl(url.deletingLastPathComponent().appendingPathComponent("5.ts").absoluteString)
        #expect(segment.status == 200)
        #expect(server.segmentedProgress(of: url)?.runStarts == [5])
        await server.stop()
    }

    /// ffmpeg reading from 80 % of the way in gets decodable pictures there:
    /// the request for that segment starts a conversion there, while the
    /// first one, paused a few segments ahead of what was asked, never got near.
    @Test func readingFromEightyPercentConvertsFromThere() async throws {
        let film = try await Self.film()
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try await Self.serve(film, on: server)
        let started = ContinuousClock.now
        let run = try await CommandOutput.of([
            "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-ss", "96", "-i", url.absoluteString, "-t", "2", "-map",
            "0:v", "-f", "framecrc", "-",
        ])
        print("from 80 %: \(ContinuousClock.now - started) for 2 s of pictures")
        #expect(run.status == 0, "\(run.stderr)")
        let frames = run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(frames.count >= 45, "\(frames.count) frames decoded")
        let progress = try #require(server.segmentedProgress(of: url))
        // ffmpeg's HLS reader opens the first segment to learn the streams, then seeks: to the
        // segment before 96 s when 96 s starts one (its seek goes back to a key frame before).
        #expect((15...16).contains(progress.runStarts.last ?? 0), "runs started at \(progress.runStarts)")
        #expect(!progress.runStarts.dropLast().contains { $0 > 0 })
        let asked = server.recentRequests.filter { $0.path.hasSuffix(".ts") }.map {
            ($0.path as NSString).lastPathComponent
        }
        #expect(asked.contains("16.ts"), "asked for \(asked)")
        #expect(!asked.contains("12.ts"), "asked for \(asked)")
        await server.stop()
    }

    /// Segments of runs started at different places join without a jump,
    /// and the whole playlist decodes with every picture in place.
    @Test func segmentsFromDifferentRunsJoinAndTheWholeFilmReadsWithoutGaps() async throws {
        let film = try await Self.film(seconds: 30)
        let folder = film.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await MediaServer.start(toward: "127.0.0.1")
        let url = try await Self.serve(film, on: server)
        let base = url.deletingLastPathComponent()
        // 3.ts first (a run from 3), then 2.ts (one from 2, whose 3 is dropped: 3 was served).
        let third = try await curl(base.appendingPathComponent("3.ts").absoluteString)
        let second = try await curl(base.appendingPathComponent("2.ts").absoluteString)
        #expect(third.status == 200 && second.status == 200)
        #expect(third.headers["content-type"] == "video/mp2t")
        #expect(server.segmentedProgress(of: url)?.runStarts == [3, 2])
        let joined = folder.appendingPathComponent("2-3.ts")
        try Data(second.body + third.body).write(to: joined)
        let times = try await Self.videoPacketTimes(joined.path)
        // 25 pictures a second from 12 s to 24 s (the segments' timestamps a second on), 40 ms apart.
        let offset = ConversionPlan.segmentTimestampOffset
        #expect(times.count == 300, "\(times.count) pictures in segments 2 and 3")
        #expect(abs((times.first ?? 0) - 12 - offset) < 0.001 && abs((times.last ?? 0) - 23.96 - offset) < 0.001)
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(steps.allSatisfy { abs($0 - 0.04) < 0.001 }, "largest step \(steps.max() ?? 0) s")

        let whole = try await Self.videoPacketTimes(url.absoluteString)
        #expect(whole.count == 750, "\(whole.count) pictures in 30 s")
        let jumps = zip(whole.dropFirst(), whole).filter { abs($0 - $1 - 0.04) >= 0.001 }
        #expect(jumps.isEmpty, "steps other than 40 ms: \(jumps.prefix(10))")
        await server.stop()
    }

    /// A run pauses a set number of segments past the last request; the
    /// folder keeps a bounded number of segments; cancelling stops ffmpeg
    /// and deletes everything.
    @Test func ffmpegPausesAheadTheFolderStaysBoundedAndCancelDeletesIt() async throws {
        let film = try await Self.film()
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let folder = Self.work(of: film)
        let conversion = try await Self.conversion(of: film, ahead: 2, kept: 12)
        func segmentFiles() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".ts") }
        }
        #expect(try await conversion.segment(0) != nil)
        // Paused once two segments past 0 are made. It is checked every 100 ms, and ffmpeg makes
        // several of these small segments in that time: not exactly three, but far from all 20.
        let paused = try await waitUntil(within: .seconds(30)) { conversion.progress.isPaused }
        #expect(paused)
        let madeWhilePaused = conversion.progress.made
        #expect(madeWhilePaused >= 3 && madeWhilePaused <= 10, "\(madeWhilePaused) segments made two past the request")
        for index in 1..<19 { #expect(try await conversion.segment(index) != nil) }
        #expect(segmentFiles().count <= 12, "\(segmentFiles())")
        #expect(try await conversion.segment(0) != nil, "a segment dropped is made again")
        #expect(try await conversion.segment(20) == nil)
        conversion.cancel()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        await #expect(throws: MediaServerError.self) { try await conversion.segment(11) }
    }

    /// A receiver playing from the start, then jumping far ahead, then back
    /// (issue 53's 45.7 s jump converted every segment between): each jump
    /// starts ffmpeg at its own segment, and nothing between is converted.
    @Test func aJumpForwardOrBackStartsAtItsSegmentWithoutConvertingWhatLiesBetween() async throws {
        let film = try await Self.film()
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let folder = Self.work(of: film)
        let conversion = try await Self.conversion(of: film, ahead: 4)
        defer { conversion.cancel() }
        for index in [0, 1, 2, 3, 17] {
            #expect(try await conversion.segment(index) != nil, "segment \(index)")
        }
        // The first run pauses 4 segments past the last request (3), a segment or two later on a
        // fast machine; the jump began at 17; nothing between them was converted.
        let between = (12...16).filter {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("\($0).ts").path)
        }
        #expect(try await conversion.segment(11) != nil, "back to segment 11")
        #expect(conversion.progress.runStarts == [0, 17, 11])
        #expect(between.isEmpty, "segments \(between) were converted on the way")
    }

    /// Two requests far apart at once (a seek while a segment was awaited):
    /// the later one moves ffmpeg, and the earlier one is told it was
    /// overtaken, instead of the two moving ffmpeg back and forth until
    /// both give up. At virtual time: the requests' polls wake when the
    /// test says.
    @Test func aRequestOvertakenByASeekGivesWayInsteadOfTakingTurns() async throws {
        let film = try await Self.film(seconds: 120)
        defer { try? FileManager.default.removeItem(at: film.deletingLastPathComponent()) }
        let clock = ManualClock()
        let conversion = try await Self.conversion(of: film, clock: clock)
        @Sendable func outcome(_ index: Int) async -> Result<String?, MediaServerError> {
            do {
                return .success(try await conversion.segment(index))
            } catch {
                return .failure(error)
            }
        }
        // Segment 10 is asked for and awaited (its poll, and the watcher of the run).
        let early = Task { await outcome(10) }
        #expect(await clock.sleepers(atLeast: 2))
        // Then 18: ffmpeg moves there, and the request waits too.
        let late = Task { await outcome(18) }
        #expect(await clock.sleepers(atLeast: 3))
        #expect(conversion.progress.runStarts == [10, 18])
        clock.advance(by: .milliseconds(50))
        guard case .failure(let overtaken) = await early.value else {
            Issue.record("segment 10 was served after ffmpeg moved to 18")
            return
        }
        #expect(overtaken.code == .unavailable)
        #expect(overtaken.message.contains("overtaken by a request for segment 18"), "\(overtaken.message)")
        #expect(conversion.progress.runStarts == [10, 18], "ffmpeg was not moved back")
        // Cancelled: the later request ends at its next poll.
        conversion.cancel()
        clock.advance(by: .milliseconds(50))
        guard case .failure(let stopped) = await late.value else {
            Issue.record("segment 18 was served after the conversion was cancelled")
            return
        }
        #expect(stopped.code == .unavailable)
    }

    /// Picture subtitles (PGS) drawn into the video: while the subtitle
    /// shows, its white box is in the decoded picture; after, the picture
    /// is as without it.
    @Test func pictureSubtitlesBurnedInAreInTheDecodedPicture() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("burn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let box = (x: 60, y: 120, width: 200, height: 40)
        let subtitles = folder.appendingPathComponent("box.sup")
        try Data(TestFilm.pictureSubtitles(canvas: (320, 180), box: box, start: 0, end: 1.5)).write(to: subtitles)
        let film = folder.appendingPathComponent("film.mkv")
        let made = try await CommandOutput.of(
            [
                "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-i",
                subtitles.path, "-map", "0:v", "-map", "1", "-t", "4",
            ] + TestFilm.mpeg4 + ["-c:s", "copy", "-y", film.path])
        #expect(made.status == 0, "\(made.stderr)")
        let media = try await Self.tools.probe(film)
        let pictures = try #require(media.streams.first { $0.kind == .subtitle })
        #expect(pictures.codec == "hdmv_pgs_subtitle" && !pictures.isTextSubtitle)
        let server = try await MediaServer.start(toward: "127.0.0.1")
        /// The mean luma of the box in the picture at `time` of what `plan` serves.
        func boxLuma(_ plan: ConversionPlan, at time: Double) async throws -> Double {
            let url = try await server.serve(file: film, segmenting: plan, media: media, tools: Self.tools)
            defer { server.withdraw(url) }
            let raw = folder.appendingPathComponent("picture.gray")
            let run = try await CommandOutput.of(
                [
                    "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-i", url.absoluteString, "-ss", String(time),
                    "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-y", raw.path,
                ])
            #expect(run.status == 0, "\(run.stderr)")
            let picture = [UInt8](try Data(contentsOf: raw))
            try #require(picture.count == 320 * 180, "\(picture.count) bytes")
            var sum = 0
            for row in box.y..<(box.y + box.height) {
                for column in box.x..<(box.x + box.width) { sum += Int(picture[row * 320 + column]) }
            }
            return Double(sum) / Double(box.width * box.height)
        }
        let plain = try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecast)
        let burning = try ConversionPlan(
            media: media, fileName: "film.mkv", device: .chromecast, burningSubtitles: pictures.index)
        #expect(burning.burnedSubtitles == pictures && burning.isSegmentable)
        let (shown, without) = (try await boxLuma(burning, at: 1), try await boxLuma(plain, at: 1))
        let (after, afterWithout) = (try await boxLuma(burning, at: 3), try await boxLuma(plain, at: 3))
        print("box luma: burned \(shown), plain \(without); after it \(after), plain \(afterWithout)")
        #expect(shown > 220, "the box is white while it shows: \(shown)")
        #expect(abs(shown - without) > 30)
        #expect(abs(after - afterWithout) < 8, "after 1.5 s the picture is as without subtitles")
        // Text subtitles and streams that are not subtitles are refused.
        #expect(throws: MediaServerError.self) {
            try ConversionPlan(media: media, fileName: "film.mkv", device: .chromecast, burningSubtitles: 0)
        }
        await server.stop()
    }
}
