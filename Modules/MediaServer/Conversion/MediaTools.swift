public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where ffprobe, ffmpeg and yt-dlp are, when installed: what checking a
/// file against a device (ffprobe), converting it (ffmpeg) and finding the
/// video on a web page (yt-dlp) need. Each is optional; without them local
/// files are judged by their extension and pages are not read.
public struct MediaTools: Sendable, Hashable {
    /// ffprobe's path, if any.
    public var ffprobe: URL?
    /// ffmpeg's path, if any.
    public var ffmpeg: URL?
    /// yt-dlp's path, if any.
    public var ytDlp: URL?

    /// Names the tools' paths.
    public init(ffprobe: URL?, ffmpeg: URL?, ytDlp: URL? = nil) {
        self.ffprobe = ffprobe
        self.ffmpeg = ffmpeg
        self.ytDlp = ytDlp
    }

    /// The tools found on `PATH` of `environment`.
    public static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) -> MediaTools {
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        func find(_ name: String) -> URL? {
            folders.lazy.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        }
        return MediaTools(ffprobe: find("ffprobe"), ffmpeg: find("ffmpeg"), ytDlp: find("yt-dlp"))
    }

    /// Asks yt-dlp which video `page` shows and how the site serves it
    /// (`yt-dlp -J --no-playlist`: it reads the page, nothing is downloaded).
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/probeFailed`` when
    ///   yt-dlp is not installed (the message says how to install it), finds
    ///   no video there, or takes longer than `timeout`;
    ///   ``MediaServerError/Code-swift.struct/unsupportedMedia`` for an answer
    ///   that names no format Cast can fetch.
    public func webVideo(on page: URL, timeout: Duration = .seconds(60)) async throws(MediaServerError) -> WebVideo {
        guard let ytDlp = self.ytDlp else {
            throw MediaServerError(
                .probeFailed,
                "\(page.absoluteString) is not a media file; to play the video on a web page, install yt-dlp "
                    + "(pip install yt-dlp)")
        }
        let arguments = ["-J", "--no-playlist", "--no-warnings", "--", page.absoluteString]
        let (status, output, errors) = try await Self.run(ytDlp, arguments, timeout: timeout)
        guard status == 0 else {
            let said = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw MediaServerError(
                .probeFailed,
                "yt-dlp found no video on \(page.absoluteString)"
                    + (said.isEmpty ? "" : ": \(said.split(separator: "\n").last ?? "")"))
        }
        return try WebVideo(ytDlpJSON: output, page: page)
    }

    /// Asks ffprobe what `file` holds.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/probeFailed`` when
    ///   ffprobe is missing, fails (an unreadable or unknown file), says
    ///   something unreadable, or takes longer than `timeout`.
    public func probe(_ file: URL, timeout: Duration = .seconds(30)) async throws(MediaServerError) -> ProbedMedia {
        try await self.probe(.file(file), timeout: timeout)
    }

    /// Asks ffprobe what `input` holds: a file, or a URL fetched with its headers.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/probeFailed`` as probing a file does.
    public func probe(_ input: MediaInput, timeout: Duration = .seconds(30)) async throws(MediaServerError)
        -> ProbedMedia
    {
        guard let ffprobe = self.ffprobe else { throw MediaServerError(.probeFailed, "ffprobe is not installed") }
        // A file's path after `--`, so that one starting with "-" is not an option; a URL as ffprobe reads it.
        let arguments =
            ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"] + input.options
            + (input.isRemote ? ["-i", input.location] : ["--", input.location])
        let (status, output, errors) = try await Self.run(ffprobe, arguments, timeout: timeout)
        guard status == 0 else {
            let said = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw MediaServerError(.probeFailed, "ffprobe cannot read \(input.name)\(said.isEmpty ? "" : ": \(said)")")
        }
        return try ProbedMedia(ffprobeJSON: output)
    }

    /// The text subtitle stream `stream` of `file` (ffmpeg's `-map 0:INDEX`)
    /// as WebVTT, as ffmpeg converts SubRip, ASS/SSA and mov_text: the
    /// file's own subtitles as a Cast text track.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when
    ///   ffmpeg is missing, fails, takes longer than `timeout`, or writes
    ///   more than 4 MiB or something that is not WebVTT.
    public func subtitles(of file: URL, stream: Int, timeout: Duration = .seconds(30)) async throws(MediaServerError)
        -> WebVTT
    {
        guard let ffmpeg = self.ffmpeg else { throw MediaServerError(.conversionFailed, "ffmpeg is not installed") }
        let arguments = ["-v", "error", "-nostdin", "-i", file.path, "-map", "0:\(stream)", "-f", "webvtt", "-"]
        let status: Int32
        let output: [UInt8]
        let errors: [UInt8]
        do {
            (status, output, errors) = try await Self.run(ffmpeg, arguments, timeout: timeout)
        } catch {
            throw MediaServerError(.conversionFailed, error.message, cause: error)
        }
        guard status == 0, output.count <= ProbedMedia.maximumJSONSize else {
            let said = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw MediaServerError(
                .conversionFailed,
                "ffmpeg cannot read subtitle stream \(stream) of \(file.lastPathComponent)"
                    + (status == 0 ? ": more than 4 MiB" : said.isEmpty ? "" : ": \(said)"))
        }
        do {
            return try WebVTT(vtt: output)
        } catch {
            throw MediaServerError(.conversionFailed, "subtitle stream \(stream): \(error)", cause: error)
        }
    }

    /// The presentation times (seconds, the file's own timestamps) of the
    /// key frames of stream `stream` of `file`: where a copied video can be
    /// cut into segments. ffprobe reads every packet's header without
    /// decoding (a two-hour film in a few seconds); at most
    /// 200 000 are kept.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/probeFailed`` when
    ///   ffprobe is missing, fails, or takes longer than `timeout`.
    public func keyFrames(of file: URL, stream: Int, timeout: Duration = .seconds(120)) async throws(MediaServerError)
        -> [Double]
    {
        try await self.keyFrames(of: .file(file), stream: stream, timeout: timeout)
    }

    /// The key frames of stream `stream` of `input` (a file, or a URL read with its headers).
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/probeFailed`` as for a file.
    public func keyFrames(of input: MediaInput, stream: Int, timeout: Duration = .seconds(120))
        async throws(MediaServerError) -> [Double]
    {
        guard let ffprobe = self.ffprobe else { throw MediaServerError(.probeFailed, "ffprobe is not installed") }
        let arguments =
            [
                "-v", "error", "-select_streams", "\(stream)", "-show_entries", "packet=pts_time,flags", "-of",
                "csv=p=0",
            ] + input.options + (input.isRemote ? ["-i", input.location] : ["--", input.location])
        let times = KeyFrameTimes()
        let (status, _, errors) = try await Self.run(ffprobe, arguments, timeout: timeout) { times.read($0) }
        guard status == 0 else {
            let said = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw MediaServerError(
                .probeFailed,
                "ffprobe cannot list the key frames of \(input.name)\(said.isEmpty ? "" : ": \(said)")")
        }
        return times.times.sorted()
    }

    /// Runs `tool` to its end, off the cooperative pool; its exit status,
    /// standard output (at most ``ProbedMedia/maximumJSONSize`` + 1 bytes
    /// kept) and the last 4 KiB of its standard error.
    /// `readOutput`, when given, reads standard output instead (and nothing of it is returned).
    private static func run(
        _ tool: URL, _ arguments: [String], timeout: Duration,
        readOutput: (@Sendable (FileHandle) -> Void)? = nil
    ) async throws(MediaServerError) -> (Int32, [UInt8], [UInt8]) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.runWithNoSignalBlocked()
        } catch {
            throw MediaServerError(.probeFailed, "cannot run \(tool.path)", cause: error)
        }
        let deadline = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        defer { deadline.cancel() }
        // Both pipes at once: a tool that fills one while we wait on the other would stall.
        async let said = Self.drain { ToolOutput.read(errors.fileHandleForReading, keepingLast: 4_096) }
        async let standardOutput = Self.drain {
            guard let readOutput else {
                return ToolOutput.read(output.fileHandleForReading, keepingFirst: ProbedMedia.maximumJSONSize + 1)
            }
            readOutput(output.fileHandleForReading)
            return []
        }
        let (outputBytes, errorBytes) = await (standardOutput, said)
        process.waitUntilExit()
        guard process.terminationReason == .exit else {
            throw MediaServerError(.probeFailed, "\(tool.lastPathComponent) did not finish within \(timeout)")
        }
        return (process.terminationStatus, outputBytes, errorBytes)
    }

    /// Runs a blocking read on a dispatch thread, off the cooperative pool.
    private static func drain(_ read: @escaping @Sendable () -> [UInt8]) async -> [UInt8] {
        await withCheckedContinuation { done in DispatchQueue.global().async { done.resume(returning: read()) } }
    }
}

/// Reading a tool's output pipes with bounded memory.
enum ToolOutput {
    /// Reads to the end, keeping the first `limit` bytes.
    static func read(_ handle: FileHandle, keepingFirst limit: Int) -> [UInt8] {
        var kept: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
            if kept.count < limit { kept += chunk.prefix(limit - kept.count) }
        }
        return kept
    }

    /// Reads to the end, keeping the last `limit` bytes.
    static func read(_ handle: FileHandle, keepingLast limit: Int) -> [UInt8] {
        var kept: [UInt8] = []
        while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
            kept += chunk
            if kept.count > limit { kept.removeFirst(kept.count - limit) }
        }
        return kept
    }
}

/// The key frames' times in ffprobe's `-show_entries packet=pts_time,flags
/// -of csv=p=0` lines (`7.506000,K_`), read as they come with bounded
/// memory: lines that are not a time and flags are skipped.
// @unchecked Sendable: it crosses into the one thread that reads ffprobe's
// output (`MediaTools.keyFrames`), which alone mutates it; the caller reads
// `times` only after that `async let` was awaited, which orders the reads
// after every write. The fuzz target uses it on one thread.
package final class KeyFrameTimes: @unchecked Sendable {
    /// The most key frames kept: a key frame a second for over 55 hours.
    package static let maximumCount = 200_000
    /// The longest line read; longer ones are skipped.
    static let maximumLineLength = 256

    package private(set) var times: [Double] = []
    private var line: [UInt8] = []
    private var overlong = false

    /// An empty list.
    package init() {}

    /// Reads `handle` to its end.
    func read(_ handle: FileHandle) {
        while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty {
            self.feed(chunk)
        }
        self.endLine()
    }

    /// Takes the next bytes of the output.
    package func feed(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                self.endLine()
            } else if self.line.count < Self.maximumLineLength {
                self.line.append(byte)
            } else {
                self.overlong = true
            }
        }
    }

    /// Ends the last line, if the output did not.
    package func endLine() {
        defer {
            self.line.removeAll(keepingCapacity: true)
            self.overlong = false
        }
        guard !self.overlong, self.times.count < Self.maximumCount else { return }
        let fields = self.line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[1].first == UInt8(ascii: "K"),
            let time = Double(String(decoding: fields[0], as: UTF8.self)), time.isFinite
        else { return }
        self.times.append(time)
    }
}
