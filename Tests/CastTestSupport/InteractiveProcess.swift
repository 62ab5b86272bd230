import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program a test talks to while it runs: lines to its stdin, its stdout
/// and stderr collected line by line as they come (each read on a thread of
/// its own, never on the concurrency pool), waited for by content with a
/// deadline that only fails the test.
public final class InteractiveProcess: Sendable {
    private struct Output {
        var stdout: [String] = []
        var stderr: [String] = []
    }

    /// The executable's name.
    public let name: String
    private let pid: pid_t
    private let input: Int32
    private let output = NIOLockedValueBox(Output())
    private let status = NIOLockedValueBox<Int32?>(nil)

    /// Starts `arguments[0]` (found on PATH) with the rest, and `environment` added to a child's.
    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        self.name = arguments.first ?? ""
        var stdin: [Int32] = [0, 0]
        var stdout: [Int32] = [0, 0]
        var stderr: [Int32] = [0, 0]
        guard pipe(&stdin) == 0, pipe(&stdout) == 0, pipe(&stderr) == 0 else {
            throw TestDaemonError.didNotStart("\(self.name): no pipes")
        }
        defer { for descriptor in [stdin[0], stdout[1], stderr[1]] { close(descriptor) } }
        // Only the child's ends are inherited: ours are closed on exec.
        for descriptor in [stdin[1], stdout[0], stderr[0]] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        self.pid = try spawnProcess(
            self.name, Array(arguments.dropFirst()), environment: environment, standardInput: stdin[0],
            standardOutput: stdout[1], standardError: stderr[1])
        self.input = stdin[1]
        Self.read(stdout[0], name: "stdout") { [output] line in output.withLockedValue { $0.stdout.append(line) } }
        Self.read(stderr[0], name: "stderr") { [output] line in output.withLockedValue { $0.stderr.append(line) } }
    }

    deinit {
        if self.exitStatus == nil {
            kill(self.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(self.pid, &status, 0)
        }
        close(self.input)
    }

    /// Its standard output's lines so far.
    public var stdout: [String] { self.output.withLockedValue { $0.stdout } }
    /// Its standard error's lines so far.
    public var stderr: [String] { self.output.withLockedValue { $0.stderr } }

    /// Its exit code (128 + the signal, if one ended it); `nil` while it runs.
    public var exitStatus: Int32? {
        self.status.withLockedValue { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(self.pid, &raw, WNOHANG) == self.pid { status = exitCode(ofWaitStatus: raw) }
            }
            return status
        }
    }

    /// Writes `line` and a newline to its standard input.
    public func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(self.input, $0.baseAddress, $0.count) }
    }

    /// The first stdout line from index `from` on that `matches`, within `timeout`; `nil` if none came.
    public func line(
        after from: Int = 0, within timeout: Duration = .seconds(15), where matches: (String) -> Bool
    ) async throws -> (index: Int, line: String)? {
        var found: (Int, String)?
        _ = try await waitUntil(within: timeout) {
            let lines = self.stdout
            if from < lines.count, let index = lines[from...].firstIndex(where: matches) {
                found = (index, lines[index])
            }
            return found != nil
        }
        return found
    }

    /// Sends `signal` (SIGINT: as Ctrl-C does).
    public func signal(_ signal: Int32) {
        if self.exitStatus == nil { kill(self.pid, signal) }
    }

    /// Waits up to `timeout` for it to end; its exit code, or `nil` if it still runs.
    public func exit(within timeout: Duration) async throws -> Int32? {
        _ = try await waitUntil(within: timeout) { self.exitStatus != nil }
        return self.exitStatus
    }

    /// Stops it: SIGTERM, then SIGKILL after 2 s.
    public func stop() async {
        guard self.exitStatus == nil else { return }
        kill(self.pid, SIGTERM)
        if await DaemonProcess.wait(for: .seconds(2), until: { self.exitStatus != nil }) { return }
        kill(self.pid, SIGKILL)
        _ = await DaemonProcess.wait(for: .seconds(2), until: { self.exitStatus != nil })
    }

    /// Reads `descriptor` to its end on a thread of its own, handing each line to `take`.
    private static func read(_ descriptor: Int32, name: String, _ take: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    take(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { take(String(decoding: pending, as: UTF8.self)) }
            close(descriptor)
        }
        thread.name = "test.\(name)"
        thread.start()
    }
}
