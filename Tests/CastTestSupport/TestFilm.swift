public import Foundation

/// Small real media files made by ffmpeg for the tests: a moving test
/// pattern and a 440 Hz tone, in the codecs and container asked for.
public enum TestFilm {
    /// ffmpeg's path, if installed.
    public static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// HEVC (8-bit 4:2:0) video, what Chromecasts before Ultra cannot decode.
    public static let hevc = ["-pix_fmt", "yuv420p", "-c:v", "libx265", "-x265-params", "log-level=none"]
    /// AC-3 stereo sound, what Cast devices do not decode.
    public static let ac3 = ["-c:a", "ac3", "-ac", "2"]
    /// H.264 High video.
    public static let h264 = ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-profile:v", "high"]
    /// MPEG-4 Part 2 video, which no Cast device decodes: quick to make, always transcoded.
    public static let mpeg4 = ["-pix_fmt", "yuv420p", "-c:v", "mpeg4", "-q:v", "6"]
    /// AAC-LC sound.
    public static let aac = ["-c:a", "aac", "-b:a", "96k"]

    /// Makes `name` in a new temporary folder: `seconds` of 320×180 at 25
    /// fps with `video` and `audio` encoder arguments; `title` as its tag.
    ///
    /// ffmpeg runs on a thread of its own while this awaits it: waiting on
    /// one of the two threads of Swift's pool for the seconds x265 takes
    /// starved a real-time test beside it (a screen-capture test's drawing
    /// loop stalled for 9 s on a fresh clone's CI).
    public static func make(
        _ name: String, seconds: Int = 2, video: [String], audio: [String], title: String? = nil
    ) async throws -> URL {
        guard let ffmpeg = Self.ffmpeg else { throw TestFilmError(message: "ffmpeg is not installed") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("film-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        var arguments = [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i",
            "sine=frequency=440:sample_rate=48000", "-t", "\(seconds)",
        ]
        arguments += video + audio + (title.map { ["-metadata", "title=\($0)"] } ?? []) + ["-y", file.path]
        let run = try await CommandOutput.of([ffmpeg] + arguments)
        guard run.status == 0 else { throw TestFilmError(message: "ffmpeg could not make \(name): \(run.stderr)") }
        return file
    }
}

extension TestFilm {
    /// `seconds` of MPEG-4 Part 2 video with two AC-3 sounds, in Matroska
    /// (`film.mkv` in a new temporary folder): English at 440 Hz (the
    /// default, untitled) and French at 880 Hz titled "Français".
    /// `video` and `audio` are the encoders' arguments (default: MPEG-4 Part 2 and AC-3).
    public static func twoSounds(
        seconds: Int = 36, video: [String] = Self.mpeg4, audio: [String] = Self.ac3
    ) async throws -> URL {
        guard let ffmpeg = Self.ffmpeg else { throw TestFilmError(message: "ffmpeg is not installed") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sounds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let film = folder.appendingPathComponent("film.mkv")
        var arguments = [
            ffmpeg, "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i",
            "sine=frequency=440:sample_rate=48000", "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=48000",
            "-t", "\(seconds)", "-map", "0:v", "-map", "1:a", "-map", "2:a",
        ]
        arguments += video + audio
        arguments += [
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fre", "-metadata:s:a:1", "title=Français",
            "-disposition:a:0", "default", "-disposition:a:1", "0", "-y", film.path,
        ]
        let run = try await CommandOutput.of(arguments)
        guard run.status == 0 else { throw TestFilmError(message: "ffmpeg could not make film.mkv: \(run.stderr)") }
        return film
    }
}

/// A test film could not be made.
public struct TestFilmError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { self.message }
}

extension TestFilm {
    /// A PGS (Blu-ray) subtitle file, `.sup`, written byte by byte: ffmpeg
    /// cannot make picture subtitles from text. It shows one opaque white
    /// rectangle `box` (x, y, width, height) on a `canvas` from `start` to
    /// `end` seconds. The segments as the format has them: a presentation
    /// composition, a window, a palette, the object (run-length coded), an
    /// end; then an empty composition that clears it.
    public static func pictureSubtitles(
        canvas: (width: Int, height: Int), box: (x: Int, y: Int, width: Int, height: Int), start: Double, end: Double
    ) -> [UInt8] {
        func be(_ value: Int, _ bytes: Int) -> [UInt8] {
            (0..<bytes).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) }
        }
        func segment(_ type: UInt8, at seconds: Double, _ data: [UInt8]) -> [UInt8] {
            let pts = Int(seconds * 90_000)
            return [0x50, 0x47] + be(pts, 4) + be(0, 4) + [type] + be(data.count, 2) + data
        }
        func composition(_ number: Int, showing: Bool) -> [UInt8] {
            be(canvas.width, 2) + be(canvas.height, 2) + [0x10] + be(number, 2) + [showing ? 0x80 : 0x00, 0, 0]
                + (showing ? [1] + be(0, 2) + [0, 0] + be(box.x, 2) + be(box.y, 2) : [0])
        }
        let window = [1, 0] + be(box.x, 2) + be(box.y, 2) + be(box.width, 2) + be(box.height, 2)
        // Palette entry 1: white (Y 235, Cr and Cb 128), opaque.
        let palette: [UInt8] = [0, 0, 1, 235, 128, 128, 255]
        // Each line: `box.width` pixels of colour 1, then the end of the line.
        let line: [UInt8] = [0, 0xC0 | UInt8(box.width >> 8), UInt8(box.width & 0xFF), 1, 0, 0]
        let picture =
            be(box.width, 2) + be(box.height, 2) + Array([[UInt8]](repeating: line, count: box.height).joined())
        let object = be(0, 2) + [0, 0xC0] + be(picture.count, 3) + picture
        return segment(0x16, at: start, composition(0, showing: true)) + segment(0x17, at: start, window)
            + segment(0x14, at: start, palette) + segment(0x15, at: start, object) + segment(0x80, at: start, [])
            + segment(0x16, at: end, composition(1, showing: false)) + segment(0x17, at: end, window)
            + segment(0x80, at: end, [])
    }
}
