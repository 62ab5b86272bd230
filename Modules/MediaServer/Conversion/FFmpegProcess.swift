import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One ffmpeg run of a conversion: started with its arguments, its error
/// text kept (the last 4 KiB), its `-progress pipe:1` read for how much
/// media it has written, and its end recorded; it can be paused (SIGSTOP)
/// while it is far enough ahead of what the receiver asks for, and stopped.
final class FFmpegProcess: Sendable {
    private let process: Process
    private let state = NIOLockedValueBox(State())

    private struct State {
        var converted = Duration.zero
        /// ffmpeg's exit status once it ended; `nil` inside for a signal.
        var ended: Int32??
        var stopped = false
        var paused = false
        /// The last 4 KiB ffmpeg wrote to standard error.
        var said: [UInt8] = []
    }

    /// How a run is, or ended.
    enum Status: Sendable, Equatable {
        /// Still running (or paused).
        case running
        /// ffmpeg ended with status 0.
        case finished
        /// ffmpeg was stopped by ``stop()``.
        case stopped
        /// ffmpeg failed: why, with the end of what it said.
        case failed(String)
    }

    /// Starts `ffmpeg` with `arguments`, which should include `-progress pipe:1`
    /// for ``converted`` to follow.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when it cannot be started.
    init(_ ffmpeg: URL, arguments: [String]) throws(MediaServerError) {
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments = arguments
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
            try process.runWithNoSignalBlocked()
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
            // read(2) returns what the pipe holds: FileHandle.read(upToCount:) waited for 4 KiB,
            // about 8 s of ffmpeg's progress lines (measured: the first came after 10 s).
            let descriptor = progress.fileHandleForReading.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer[..<count]
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

    /// ffmpeg's process id.
    var processIdentifier: Int32 { self.process.processIdentifier }

    /// How much media ffmpeg has written (its `out_time`).
    var converted: Duration { self.state.withLockedValue { $0.converted } }

    /// How the run is.
    var status: Status {
        self.state.withLockedValue { state in
            switch state.ended {
            case .none:
                return .running
            case .some(.some(0)):
                return .finished
            case .some(let status):
                if state.stopped { return .stopped }
                let said = String(decoding: state.said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                return .failed(
                    "ffmpeg stopped (\(status.map { "status \($0)" } ?? "killed"))\(said.isEmpty ? "" : ": \(said)")")
            }
        }
    }

    /// Pauses (`true`) or resumes ffmpeg; nothing once it ended.
    func pause(_ paused: Bool) {
        let changed = self.state.withLockedValue { state -> Bool in
            guard state.ended == nil, state.paused != paused else { return false }
            state.paused = paused
            return true
        }
        if changed { kill(self.process.processIdentifier, paused ? SIGSTOP : SIGCONT) }
    }

    /// Whether ffmpeg is paused.
    var isPaused: Bool { self.state.withLockedValue { $0.paused } }

    /// Stops ffmpeg (a paused one too) and waits for its end: SIGKILL, which
    /// no signal mask holds back and a paused process obeys at once; what the
    /// run was writing is thrown away by its owner, which collected every
    /// finished file before.
    func stop() {
        let running = self.state.withLockedValue { state -> Bool in
            state.stopped = state.ended == nil
            state.paused = false
            return state.ended == nil
        }
        if running, self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
        self.process.waitUntilExit()
    }
}
