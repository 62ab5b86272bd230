import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// `cast play` with what is on this machine: files served to an emulator
/// that fetches what it is told to play, as a receiver does.
///
/// A suite of its own beside ``CastCommandLineTests``: its runs stream
/// nothing in real time and take no turn, so they need not wait in that
/// suite's line for the streaming tests' turns (they were its last 25 s).
/// One at a time among themselves: several `cast` processes converting
/// with ffmpeg at once would take the machine from the streaming tests.
@Suite(.timeLimit(.minutes(10)), .serialized) struct CastPlayLocalTests {
    typealias Run = CastCommandLineTests.Run

    /// Under a sanitizer (5–15 times slower) they take the real-time turn
    /// after all: beside them, `cast demo` decoded 135 of its 150 sound
    /// frames and a device chooser in a namespace saw no interface for
    /// 100 s (a fresh-clone `make tsan`, when they first ran beside the rest).
    static let takesTurn = Sanitizers.areActive
    /// The media-namespace requests of `type` the emulator receives while `body` runs `cast`.
    ///
    /// The process has ended when `body` returns, but the emulator's events may trail it on a
    /// busy machine. They are all in once the emulator has seen the socket `cast` opened close:
    /// it reports a connection's messages in the order they came, and its end after them.
    static func mediaRequests(
        _ type: String, to emulator: CastEmulator, during body: () async throws -> Void
    ) async throws -> [JSONValue] {
        let seen = NIOLockedValueBox((requests: [JSONValue](), opened: Set<Int>(), closed: Set<Int>()))
        let events = emulator.events()
        let watcher = Task {
            for await event in events {
                switch event {
                case .connectionOpened(let connection):
                    seen.withLockedValue { _ = $0.opened.insert(connection) }
                case .connectionClosed(let connection):
                    seen.withLockedValue { _ = $0.closed.insert(connection) }
                case .messageReceived(_, let message):
                    guard message.namespace == CastNamespace.media,
                        let json = try? JSONValue(parsing: message.text ?? ""), json["type"] == .string(type)
                    else { continue }
                    seen.withLockedValue { $0.requests.append(json) }
                default:
                    continue
                }
            }
        }
        defer { watcher.cancel() }
        try await body()
        let ended = try await waitUntil(within: .seconds(10)) {
            seen.withLockedValue { !$0.opened.isEmpty && $0.opened.isSubset(of: $0.closed) }
        }
        #expect(ended, "the emulator did not see cast's connection open and close")
        return seen.withLockedValue { $0.requests }
    }

    @Test func playServesALocalFileWithItsSubtitlesUntilCtrlC() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let film = folder.appendingPathComponent("Our Film.mp4")
        try Data(repeating: 7, count: 300_000).write(to: film)
        try Data(
            "1\r\n00:00:01,000 --> 00:00:02,000\r\n<i>Hello</i>\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nBye\r\n"
                .utf8
        )
        .write(to: folder.appendingPathComponent("Our Film.srt"))
        try await CastCommandLineTests.withEmulator(fetchesMedia: true, takesTurn: Self.takesTurn) { emulator, device in
            var run: Run?
            let loads = try await Self.mediaRequests("LOAD", to: emulator) {
                run = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"), ["play", film.path, "--device", device, "--json"],
                    interruptAfter: .seconds(60), interruptWhen: { $0.contains("playing 0:0") })
            }
            let result = try #require(run)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("serving local files from http://127.0.0.1:"))
            #expect(result.stderr.contains("subtitles: Our Film.srt, 2 cues"))
            #expect(result.stderr.contains("playing 0:0"))
            #expect(result.stderr.contains("stopping the media"))
            #expect(try result.json()["outcome"] == "stopped")
            let load = try #require(loads.first)
            let url = try #require(load["media"]?["contentId"]?.stringValue)
            #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/Our%20Film.mp4"))
            #expect(load["media"]?["metadata"]?["title"] == "Our Film")
            #expect(load["media"]?["tracks"]?.arrayValue?.first?["trackContentType"] == "text/vtt")
            #expect(load["activeTrackIds"] == .array([.integer(1)]))
        }
    }

    /// `cast play FILE ARGUMENTS` until it prints a progress line, then Ctrl-C; its run and the LOAD it sent.
    static func playUntilItPlays(
        _ file: URL, _ arguments: [String], on emulator: CastEmulator, _ device: String,
        environment: [String: String] = [:]
    ) async throws -> (Run, JSONValue?) {
        var run: Run?
        let loads = try await Self.mediaRequests("LOAD", to: emulator) {
            run = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"), ["play", file.path, "--device", device] + arguments,
                interruptAfter: .seconds(60), interruptWhen: { $0.contains("playing ") }, environment: environment)
        }
        let result = try #require(run)
        #expect(result.status == 0, "\(result.stderr)")
        return (result, loads.first)
    }

    /// A Matroska film with three text subtitle tracks — SubRip English, ASS
    /// German (the file's default), WebVTT French — made by ffmpeg: each is a
    /// WebVTT text track of the LOAD with its language and name, the default
    /// is shown, and `--subtitles` picks by language or number, or none.
    @Test(.enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
    func theFilesOwnSubtitlesAreTextTracksAndOneIsChosen() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = [
            ("en.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n"),
            (
                "de.ass",
                "[Script Info]\nScriptType: v4.00+\n\n[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, "
                    + "MarginR, MarginV, Effect, Text\nDialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,Hallo\n"
            ),
            ("fr.vtt", "WEBVTT\n\n00:00:00.500 --> 00:00:01.500\nBonjour\n"),
        ]
        for (name, text) in sources { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        // And a picture track (PGS), which TVs do not show: left out of the tracks, or burned in.
        let pictures = folder.appendingPathComponent("box.sup")
        try Data(TestFilm.pictureSubtitles(canvas: (320, 180), box: (60, 120, 200, 40), start: 0, end: 1.5))
            .write(to: pictures)
        let film = folder.appendingPathComponent("Three Languages.mkv")
        let ffmpeg = try #require(TestFilm.ffmpeg)
        let made = try await CommandOutput.of(
            [
                ffmpeg, "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-f", "lavfi",
                "-i", "sine=frequency=440:sample_rate=48000",
            ] + sources.flatMap { ["-i", folder.appendingPathComponent($0.0).path] } + [
                "-i", pictures.path, "-map", "0:v", "-map", "1:a", "-map", "2", "-map", "3", "-map", "4", "-map", "5",
                "-t", "2", "-pix_fmt", "yuv420p",
                "-c:v", "libx264", "-c:a", "aac", "-c:s", "copy",
                "-metadata:s:a:0", "language=eng",
                "-metadata:s:s:0", "language=eng", "-metadata:s:s:0", "title=English",
                "-metadata:s:s:1", "language=ger", "-metadata:s:s:1", "title=Deutsch",
                "-metadata:s:s:2", "language=fre", "-metadata:s:s:2", "title=Français",
                "-disposition:s:0", "0", "-disposition:s:1", "default", "-disposition:s:2", "0", "-y", film.path,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        chmod(film.path, 0o644)
        try await CastCommandLineTests.withEmulator(fetchesMedia: true, takesTurn: Self.takesTurn) { emulator, device in
            let (run, load) = try await Self.playUntilItPlays(film, [], on: emulator, device)
            let tracks = try #require(load?["media"]?["tracks"]?.arrayValue)
            #expect(tracks.map { $0["language"]?.stringValue } == ["en", "de", "fr"])
            #expect(tracks.map { $0["name"]?.stringValue } == ["English", "Deutsch", "Français"])
            #expect(tracks.allSatisfy { $0["type"] == "TEXT" && $0["trackContentType"] == "text/vtt" })
            #expect(tracks.allSatisfy { ($0["trackContentId"]?.stringValue ?? "").hasSuffix(".vtt") })
            #expect(load?["activeTrackIds"] == .array([.integer(2)]))  // the file's default: German
            for line in ["English (en), 1 cues", "Deutsch (de), 1 cues", "Français (fr), 1 cues"] {
                #expect(run.stderr.contains("subtitles in the file: \(line)"), "\(run.stderr)")
            }
            // French by language, with the one sound stream (English) chosen by language too.
            let (english, french) = try await Self.playUntilItPlays(
                film, ["--subtitles", "fr", "--audio", "en"], on: emulator, device)
            #expect(french?["activeTrackIds"] == .array([.integer(3)]))
            #expect(english.stderr.contains("audio: en"), "\(english.stderr)")
            let (_, first) = try await Self.playUntilItPlays(film, ["--subtitles", "1"], on: emulator, device)
            #expect(first?["activeTrackIds"] == .array([.integer(1)]))
            let (_, none) = try await Self.playUntilItPlays(film, ["--subtitles", "off"], on: emulator, device)
            #expect(none?["activeTrackIds"] == nil)
            #expect(none?["media"]?["tracks"]?.arrayValue?.count == 3)
            // The picture track drawn into the video, which is then converted; the text tracks stay.
            let (burned, burnedLoad) = try await Self.playUntilItPlays(
                film, ["--burn-subtitles", "4"], on: emulator, device)
            #expect(
                burned.stderr.contains("burning subtitle stream 4 (hdmv_pgs_subtitle"),
                "\(burned.stderr)")
            #expect(burned.stderr.contains("video to H.264"), "\(burned.stderr)")
            #expect(burnedLoad?["media"]?["contentType"] == "application/vnd.apple.mpegurl")
            #expect(burnedLoad?["media"]?["tracks"]?.arrayValue?.count == 3)
            let burningText = try await CastCommandLineTests.cast(
                "play", film.path, "--burn-subtitles", "1", "--device", device)
            #expect(burningText.status == 9, "\(burningText.stderr)")
            #expect(
                burningText.stderr.contains("is text (subrip): it is sent as a text track"), "\(burningText.stderr)")
            let burningNone = try await CastCommandLineTests.cast(
                "play", film.path, "--burn-subtitles", "5", "--device", device)
            #expect(burningNone.stderr.contains("--burn-subtitles 5: Three Languages.mkv has 4 subtitle streams"))
            let refusedSubtitles = try await CastCommandLineTests.cast(
                "play", film.path, "--subtitles", "it", "--device", device)
            #expect(refusedSubtitles.status == 9, "\(refusedSubtitles.stderr)")
            #expect(refusedSubtitles.stderr.contains("no subtitles in that language (there are: en, de, fr)"))
            let refusedSound = try await CastCommandLineTests.cast(
                "play", film.path, "--audio", "de", "--device", device)
            #expect(refusedSound.status == 9, "\(refusedSound.stderr)")
            #expect(refusedSound.stderr.contains("has no sound in that language (there are: en)"))
            let refusedNumber = try await CastCommandLineTests.cast(
                "play", film.path, "--audio", "3", "--device", device)
            #expect(refusedNumber.stderr.contains("--audio 3: Three Languages.mkv has 1 audio streams"))
        }
    }

    /// When the TV does not play, `cast play` says why and what to try, with
    /// exit code 6: a stall in BUFFERING is loaded again at its position once,
    /// then given up on; a receiver that never fetched anything is named
    /// unreachable; IDLE with reason ERROR is a file it cannot decode.
    @Test func playbackThatFailsEndsWithItsLikelyCause() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (stalling, erroring) = (
            folder.appendingPathComponent("stalling.mp4"), folder.appendingPathComponent("erroring.mp4")
        )
        for film in [stalling, erroring] {
            try Data(repeating: 7, count: 300_000).write(to: film)
            chmod(film.path, 0o644)
        }
        try await CastCommandLineTests.withEmulator(fetchesMedia: true, takesTurn: Self.takesTurn) { emulator, device in
            emulator.faults.stallingContentIDs = ["/stalling.mp4"]
            emulator.faults.erroringContentIDs = ["/erroring.mp4"]
            var stalled: Run?
            let loads = try await Self.mediaRequests("LOAD", to: emulator) {
                stalled = try await CastCommandLineTests.cast(
                    "play", stalling.path, "--buffering-timeout", "1", "--device", device)
            }
            let stall = try #require(stalled)
            #expect(stall.status == 6, "\(stall.stderr)")
            #expect(stall.stderr.contains("still buffering after 1 s: loading it again at 0:00"), "\(stall.stderr)")
            #expect(stall.stderr.contains("kept buffering at 0:00 for 1 s, even after loading it again"))
            #expect(loads.count == 2)
            #expect(loads.last?["media"]?["contentId"] == loads.first?["media"]?["contentId"])

            let error = try await CastCommandLineTests.cast("play", erroring.path, "--device", device)
            #expect(error.status == 6, "\(error.stderr)")
            #expect(error.stderr.contains("it most likely cannot decode this media"), "\(error.stderr)")
            #expect(error.stderr.contains("--convert always"))
        }
        // A receiver that never fetches (this emulator fetches nothing) and stays buffering.
        try await CastCommandLineTests.withEmulator(fetchesMedia: false, takesTurn: Self.takesTurn) {
            emulator, device in
            emulator.faults.stallingContentIDs = ["/stalling.mp4"]
            let unreachable = try await CastCommandLineTests.cast(
                "play", stalling.path, "--buffering-timeout", "1", "--device", device)
            #expect(unreachable.status == 6, "\(unreachable.stderr)")
            #expect(
                unreachable.stderr.contains("never fetched anything from http://127.0.0.1:"), "\(unreachable.stderr)")
            #expect(unreachable.stderr.contains("can it reach this machine"))
        }
    }

    /// A film stopped with Ctrl-C resumes there at the next `cast play` (kept in the XDG
    /// state directory), and says so; `--start` still says where.
    @Test func aStoppedFilmResumesWhereItWasStopped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
        let state = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        chmod(state.path, 0o777)  // the unprivileged user's state directory
        defer { try? FileManager.default.removeItem(at: folder) }
        let film = folder.appendingPathComponent("Long Film.mp4")
        try Data(repeating: 7, count: 300_000).write(to: film)
        chmod(film.path, 0o644)
        let environment = ["XDG_STATE_HOME": state.path]
        try await CastCommandLineTests.withEmulator(fetchesMedia: true, takesTurn: Self.takesTurn) { emulator, device in
            func play(_ arguments: String...) async throws -> (Run, JSONValue?) {
                try await Self.playUntilItPlays(film, arguments, on: emulator, device, environment: environment)
            }
            // Stopped two minutes in.
            let (first, firstLoad) = try await play("--start", "120")
            #expect(!first.stderr.contains("resuming"))
            #expect(firstLoad?["currentTime"]?.doubleValue == 120)
            // The next play starts there, and says so.
            let (second, secondLoad) = try await play()
            #expect(second.stderr.contains("resuming at 2:0"), "\(second.stderr)")
            let resumed = try #require(secondLoad?["currentTime"]?.doubleValue)
            #expect((120..<150).contains(resumed), "\(resumed)")
            // --start 0 plays it from the beginning; --serve-address chooses where it is served from
            // (IPv6 loopback here, where the route toward the device would give 127.0.0.1), and the
            // device fetches it there.
            let (third, thirdLoad) = try await play("--start", "0", "--serve-address", "::1")
            #expect(!third.stderr.contains("resuming"))
            #expect(thirdLoad?["currentTime"]?.doubleValue == 0)
            let served = thirdLoad?["media"]?["contentId"]?.stringValue ?? ""
            #expect(served.hasPrefix("http://[::1]:"), "\(served)")
            #expect(first.stderr.contains("serving local files from http://127.0.0.1:"), "\(first.stderr)")
        }
    }

    @Test func aFolderBecomesAQueueInNameOrderAndWhatCastCannotPlayIsNamed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("album-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["track 10.mp3", "track 2.mp3", "track 1.mp3", "notes.txt", ".hidden.mp3"] {
            try Data(repeating: 1, count: 10_000).write(to: folder.appendingPathComponent(name))
        }
        let matroska = folder.appendingPathComponent("film.mkv")
        try Data(repeating: 1, count: 10_000).write(to: matroska)
        try await CastCommandLineTests.withEmulator(fetchesMedia: true, takesTurn: Self.takesTurn) { emulator, device in
            var run: Run?
            // film.mkv is in the folder too: refused, by name, before anything loads.
            let queues = try await Self.mediaRequests("QUEUE_LOAD", to: emulator) {
                run = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"), ["play", folder.path, "--device", device])
            }
            let refused = try #require(run)
            #expect(refused.status == 9)
            #expect(refused.stderr.contains("film.mkv is video/x-matroska, a container Cast devices do not play"))
            #expect(queues.isEmpty)
            try FileManager.default.removeItem(at: matroska)

            let queued = try await Self.mediaRequests("QUEUE_LOAD", to: emulator) {
                run = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"), ["play", folder.path, "--device", device],
                    interruptAfter: .seconds(60), interruptWhen: { $0.contains("playing ") })
            }
            let played = try #require(run)
            #expect(played.status == 0, "\(played.stderr)")
            #expect(played.stderr.contains("loading a queue of 3"))
            let titles = (queued.first?["items"]?.arrayValue ?? []).compactMap {
                $0["media"]?["metadata"]?["title"]?.stringValue
            }
            #expect(titles == ["track 1", "track 2", "track 10"])

            let missing = try await CastCommandLineTests.cast(
                "play", folder.appendingPathComponent("nothing.mp4").path, "--device", device)
            #expect(missing.status == 9)
        }
    }

    @Test(.enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg and ffprobe (make setup installs them)"))
    func whatTheDeviceCannotDecodeIsConvertedWithFFmpegAndNamedWithoutIt() async throws {
        let film = try await TestFilm.make("film.mkv", video: TestFilm.hevc, audio: TestFilm.ac3, title: "Test Pattern")
        let folder = film.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await CastCommandLineTests.withEmulator(fetchesMedia: true) { emulator, device in
            var run: Run?
            let loads = try await Self.mediaRequests("LOAD", to: emulator) {
                run = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"), ["play", film.path, "--device", device, "--json"],
                    interruptAfter: .seconds(60), interruptWhen: { $0.contains("playing 0:0") })
            }
            // The emulator fetched what was converted and plays it.
            let result = try #require(run)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "converting film.mkv: a Chromecast cannot play HEVC video, AC-3 audio or the Matroska container; "
                        + "video to H.264, audio to AAC, into HLS segments made as they are asked for"),
                "\(result.stderr)")
            #expect(result.stderr.contains("playing 0:0"))
            // HLS with MPEG-TS segments, said as the Cast SDKs say it.
            let load = try #require(loads.first)
            #expect(load["media"]?["contentType"] == "application/vnd.apple.mpegurl")
            #expect(load["media"]?["hlsSegmentFormat"] == "ts")
            #expect(load["media"]?["hlsVideoSegmentFormat"] == "mpeg2_ts")
            #expect(load["media"]?["contentId"]?.stringValue?.hasSuffix("/film.m3u8") == true)
            #expect(load["media"]?["metadata"]?["title"] == "Test Pattern")
            let duration = try #require(load["media"]?["duration"]?.doubleValue)
            #expect(duration > 1.9 && duration < 2.2)

            // A Chromecast Ultra decodes HEVC: the video is copied, the sound still converted.
            let ultra = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"),
                ["play", film.path, "--device", device, "--device-model", "Chromecast Ultra"],
                interruptAfter: .seconds(60), interruptWhen: { $0.contains("playing ") })
            #expect(ultra.status == 0, "\(ultra.stderr)")
            #expect(
                ultra.stderr.contains(
                    "a Chromecast Ultra cannot play AC-3 audio or the Matroska container; video copied, audio to AAC"))

            // ffprobe without ffmpeg: the codecs are named, nothing is loaded.
            let tools = folder.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: tools.appendingPathComponent("ffprobe").path, withDestinationPath: "/usr/bin/ffprobe")
            var refused: Run?
            let none = try await Self.mediaRequests("LOAD", to: emulator) {
                refused = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"), ["play", film.path, "--device", device],
                    environment: ["PATH": tools.path])
            }
            let failure = try #require(refused)
            #expect(failure.status == 9)
            #expect(
                failure.stderr.contains(
                    "film.mkv: a Chromecast cannot play HEVC video, AC-3 audio or the Matroska container; install ffmpeg to convert it"
                ), "\(failure.stderr)")
            #expect(none.isEmpty)
            let never = try await CastCommandLineTests.cast("play", film.path, "--device", device, "--convert", "never")
            #expect(never.status == 9)
            #expect(never.stderr.contains("--convert never was given"))
        }
    }
}
