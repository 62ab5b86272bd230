import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program run to its end: its exit status and what it printed.
public struct CommandOutput: Sendable {
    /// The exit code, or 128 + the signal that ended it.
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// stdout, then stderr.
    public var text: String { self.stdout + self.stderr }

    /// Runs `arguments[0]` with the rest as its arguments on a thread of its
    /// own and awaits its end. With `interruptAfter`, it gets a SIGINT
    /// (Ctrl-C) that long after it started; with `interruptWhen`, as soon as
    /// what it printed on standard error satisfies it, or with
    /// `interruptWhenPrinted` what it printed on standard output
    /// (`interruptAfter` then being the latest). Past `timeLimit` it is
    /// killed and this throws
    /// with what it printed, so a program that hangs fails its test instead
    /// of holding up the run.
    public static func of(
        _ arguments: [String], environment: [String: String] = [:], interruptAfter: Duration? = nil,
        interruptWhen: (@Sendable (String) -> Bool)? = nil,
        interruptWhenPrinted: (@Sendable (String) -> Bool)? = nil, timeLimit: Duration = .seconds(180)
    ) async throws -> CommandOutput {
        try await onOwnThread {
            try Self.waiting(
                for: arguments, environment: environment, interruptAfter: interruptAfter,
                interruptWhen: interruptWhen, interruptWhenPrinted: interruptWhenPrinted, timeLimit: timeLimit)
        }
    }

    /// `of(_:)` on the calling thread, for set-up code that is not async (a
    /// few milliseconds of `ip` or `tmux`).
    public static func waiting(
        for arguments: [String], environment: [String: String] = [:], interruptAfter: Duration? = nil,
        interruptWhen: (@Sendable (String) -> Bool)? = nil,
        interruptWhenPrinted: (@Sendable (String) -> Bool)? = nil, timeLimit: Duration = .seconds(180)
    ) throws -> CommandOutput {
        let output = try OutputPipe.make()
        let errors = try OutputPipe.make()
        let pid: pid_t
        do {
            pid = try spawnProcess(
                arguments[0], Array(arguments.dropFirst()), environment: environment,
                standardOutput: output.write, standardError: errors.write)
        } catch {
            for descriptor in [output.read, output.write, errors.read, errors.write] { close(descriptor) }
            throw error
        }
        close(output.write)
        close(errors.write)
        defer {
            close(output.read)
            close(errors.read)
        }
        let start = ContinuousClock.now
        var interrupted = interruptAfter == nil && interruptWhen == nil && interruptWhenPrinted == nil
        var collected = [Data(), Data()]
        var open = [output.read, errors.read]
        var exitStatus: Int32?
        var exitedAt: ContinuousClock.Instant?
        while true {
            let now = ContinuousClock.now
            if exitStatus == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    exitStatus = status
                    exitedAt = now
                }
            }
            // Done once both pipes ended; a daemon the program left holding
            // them gets one second.
            if let exitedAt, open.allSatisfy({ $0 < 0 }) || now - exitedAt > .seconds(1) { break }
            if exitStatus == nil, !interrupted,
                interruptAfter.map({ now - start >= $0 }) == true
                    || interruptWhen.map({ $0(String(decoding: collected[1], as: UTF8.self)) }) == true
                    || interruptWhenPrinted.map({ $0(String(decoding: collected[0], as: UTF8.self)) }) == true
            {
                kill(pid, SIGINT)
                interrupted = true
            }
            if exitStatus == nil, now - start > timeLimit {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                let printed = collected.map { String(decoding: $0, as: UTF8.self) }.joined()
                throw TestDaemonError.requestFailed(
                    "\(arguments.joined(separator: " ")) ran over \(timeLimit) and was killed; it printed: \(printed)")
            }
            Self.drain(&open, into: &collected, waiting: .milliseconds(20))
        }
        let result = CommandOutput(
            status: exitCode(ofWaitStatus: exitStatus ?? 0),
            stdout: String(decoding: collected[0], as: UTF8.self),
            stderr: String(decoding: collected[1], as: UTF8.self))
        result.reportSanitizerFindings(of: arguments)
        return result
    }

    /// A sanitized program's reports, written where the test run's own go
    /// (`make tsan` counts and shows them from there): a program that
    /// found a race exits 66 (ThreadSanitizer's exit code), and its test
    /// would otherwise see only that number.
    private func reportSanitizerFindings(of arguments: [String]) {
        guard self.stderr.contains("WARNING: ThreadSanitizer") || self.stderr.contains("ERROR: AddressSanitizer")
        else { return }
        let command = arguments.map { URL(fileURLWithPath: $0).lastPathComponent }.prefix(3).joined(separator: " ")
        FileHandle.standardError.write(
            Data("--- \(command) (its stderr: a sanitizer report) ---\n\(self.stderr)\n".utf8))
    }

    /// Reads what the open descriptors (`-1` once ended) have, waiting at most `timeout` for any.
    private static func drain(_ descriptors: inout [Int32], into buffers: inout [Data], waiting timeout: Duration) {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = Int32(
            timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&polled, nfds_t(polled.count), milliseconds) > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        for index in polled.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
            let count = chunk.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffers[index].append(contentsOf: chunk[..<count])
            } else if count == 0 || errno != EINTR {
                descriptors[index] = -1
            }
        }
    }

    /// `dbus-send --print-reply` on the bus at `bus` (an independent D-Bus client): what it printed,
    /// the reply or the error.
    public static func dbusSend(_ bus: String, _ arguments: [String]) async throws -> String {
        try await Self.of(["/usr/bin/dbus-send", "--bus=\(bus)", "--print-reply"] + arguments).text
    }
}

/// A pipe's two descriptors, closed on exec (the child gets copies as its stdout or stderr).
private struct OutputPipe {
    let read: Int32
    let write: Int32

    static func make() throws -> OutputPipe {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw TestDaemonError.didNotStart("pipe: \(String(cString: strerror(errno)))")
        }
        // (pipe2 needs _GNU_SOURCE, which Swift's Glibc module leaves out.)
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return OutputPipe(read: descriptors[0], write: descriptors[1])
    }
}
