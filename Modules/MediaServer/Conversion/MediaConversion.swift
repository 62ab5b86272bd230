import Foundation
import NIOConcurrencyHelpers

/// How far a conversion is.
public struct ConversionProgress: Sendable, Hashable {
    /// How much of the media ffmpeg has written.
    public var converted: Duration
    /// Whether ffmpeg finished: the file is whole, and served with byte ranges.
    public var isFinished: Bool
    /// Why it failed, if it did.
    public var failure: String?
}

/// One file ffmpeg converts into fragmented MP4 in a working folder, served
/// while it grows: a receiver starts playing after the first fragment, not
/// after the whole film.
final class MediaConversion: Sendable {
    /// The file being written.
    let output: String
    private let state = NIOLockedValueBox(State())
    private let process: Process

    private struct State {
        var converted = Duration.zero
        /// ffmpeg's exit status once it ended; `nil` for a signal.
        var ended: Int32??
        var cancelled = false
        /// The last 4 KiB ffmpeg wrote to standard error.
        var said: [UInt8] = []
    }

    /// Starts ffmpeg on `file` as `plan` says, writing into `folder`.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when ffmpeg cannot be started.
    init(file: URL, plan: ConversionPlan, ffmpeg: URL, folder: URL, name: String) throws(MediaServerError) {
        self.output = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments = plan.ffmpegArguments(input: file.path, output: self.output)
        process.standardInput = FileHandle.nullDevice
        let progress = Pipe()
        let errors = Pipe()
        process.standardOutput = progress
        process.standardError = errors
        self.process = process
        let state = self.state
        process.terminationHandler = { process in
            let status = process.terminationReason == .exit ? process.terminationStatus : nil
            state.withLockedValue { $0.ended = .some(status) }
        }
        do {
            try process.run()
        } catch {
            throw MediaServerError(.conversionFailed, "cannot run \(ffmpeg.path)", cause: error)
        }
        // ffmpeg's error text, the last 4 KiB of it.
        Thread.detachNewThread {
            let said = ToolOutput.read(errors.fileHandleForReading, keepingLast: 4_096)
            state.withLockedValue { $0.said = said }
        }
        // `-progress pipe:1`: key=value lines, out_time_us= the media time written.
        Thread.detachNewThread {
            var pending: [UInt8] = []
            while let chunk = try? progress.fileHandleForReading.read(upToCount: 4_096), !chunk.isEmpty {
                pending += chunk
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    guard line.hasPrefix("out_time_us="), let micro = Int64(line.dropFirst(12)), micro >= 0 else {
                        continue
                    }
                    state.withLockedValue { $0.converted = .microseconds(micro) }
                }
                if pending.count > 4_096 { pending.removeAll() }
            }
        }
    }

    /// How far it is.
    var progress: ConversionProgress {
        self.state.withLockedValue { state in
            var progress = ConversionProgress(converted: state.converted, isFinished: false, failure: nil)
            switch state.ended {
            case .none:
                break
            case .some(.some(0)):
                progress.isFinished = true
            case .some(let status):
                let said = String(decoding: state.said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                progress.failure =
                    state.cancelled
                    ? "cancelled"
                    : "ffmpeg stopped (\(status.map { "status \($0)" } ?? "killed"))\(said.isEmpty ? "" : ": \(said)")"
            }
            return progress
        }
    }

    /// The progress once ffmpeg has made its output file (it reads the
    /// input's head first), has ended, or after 30 s.
    func started() async -> ConversionProgress {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let progress = self.progress
            if progress.isFinished || progress.failure != nil || access(self.output, F_OK) == 0
                || ContinuousClock.now >= deadline
            {
                return progress
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops ffmpeg (if still running) and deletes what it wrote.
    func cancel() {
        self.state.withLockedValue { $0.cancelled = true }
        if self.process.isRunning { self.process.terminate() }
        self.process.waitUntilExit()
        unlink(self.output)
    }
}
