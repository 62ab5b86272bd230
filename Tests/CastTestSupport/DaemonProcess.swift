public import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A daemon a test starts (Xvfb, PulseAudio, a player) and stops, whatever
/// happens.
///
/// Spawned with `spawnProcess` and reaped with `waitpid` here, never waited
/// for on a blocked thread: on a 2-core machine the Swift concurrency pool
/// has two threads, and tests that block them starve every other test.
public final class DaemonProcess: Sendable {
    /// The executable's name.
    public let name: String
    /// Its process id.
    public let pid: pid_t
    private let reaped = NIOLockedValueBox(false)

    /// Starts `executable` (found on PATH) with `arguments`, and
    /// `environment` added to this process's; its output goes nowhere, or
    /// what it writes to standard error to `errorLog` (created or truncated).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], errorLog: URL? = nil
    ) throws {
        self.name = executable
        var log: Int32?
        if let errorLog {
            let descriptor = open(errorLog.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw TestDaemonError.didNotStart("\(executable): cannot open \(errorLog.path)")
            }
            log = descriptor
        }
        defer { if let log { close(log) } }
        self.pid = try spawnProcess(executable, arguments, environment: environment, standardError: log)
    }

    deinit {
        if !self.hasExited {
            kill(self.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(self.pid, &status, 0)
        }
    }

    /// Whether the daemon exited (reaping it if so).
    public var hasExited: Bool {
        self.reaped.withLockedValue { reaped in
            if !reaped {
                var status: Int32 = 0
                reaped = waitpid(self.pid, &status, WNOHANG) == self.pid
            }
            return reaped
        }
    }

    /// Stops the daemon: SIGTERM, then SIGKILL if it is still there after 2 s.
    public func stop() async {
        guard !self.hasExited else { return }
        kill(self.pid, SIGTERM)
        if await Self.wait(for: .seconds(2), until: { self.hasExited }) { return }
        kill(self.pid, SIGKILL)
        _ = await Self.wait(for: .seconds(2), until: { self.hasExited })
    }

    /// Polls `condition` every 20 ms for up to `timeout`, sleeping (not blocking) in between.
    public static func wait(for timeout: Duration, until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}

/// A daemon or a request to it failed in a test's setup.
public enum TestDaemonError: Error {
    /// The daemon named did not start.
    case didNotStart(String)
    /// A request to it failed.
    case requestFailed(String)
}
