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
    /// AAC-LC sound.
    public static let aac = ["-c:a", "aac", "-b:a", "96k"]

    /// Makes `name` in a new temporary folder: `seconds` of 320×180 at 25
    /// fps with `video` and `audio` encoder arguments; `title` as its tag.
    public static func make(
        _ name: String, seconds: Int = 2, video: [String], audio: [String], title: String? = nil
    ) throws -> URL {
        guard let ffmpeg = Self.ffmpeg else { throw TestFilmError(message: "ffmpeg is not installed") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("film-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        var arguments = [
            "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=25", "-f", "lavfi", "-i",
            "sine=frequency=440:sample_rate=48000", "-t", "\(seconds)",
        ]
        arguments += video + audio + (title.map { ["-metadata", "title=\($0)"] } ?? []) + ["-y", file.path]
        let run = try CommandOutput.waiting(for: [ffmpeg] + arguments)
        guard run.status == 0 else { throw TestFilmError(message: "ffmpeg could not make \(name): \(run.stderr)") }
        return file
    }
}

/// A test film could not be made.
public struct TestFilmError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { self.message }
}
