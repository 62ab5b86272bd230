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
/// Spawned with `posix_spawnp` and reaped with `waitpid` here, not through
/// Foundation's `Process`, and never waited for on a blocked thread: on a
/// 2-core machine the Swift concurrency pool has two threads, and tests
/// that block them (a `waitUntilExit`) starve every other test of the run.
public final class DaemonProcess: Sendable {
    /// The executable's name.
    public let name: String
    /// Its process id.
    public let pid: pid_t
    private let reaped = NIOLockedValueBox(false)

    /// Starts `executable` (found on PATH) with `arguments`, and
    /// `environment` added to this process's; its output goes nowhere.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        self.name = executable
        let environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of this process: an inherited listening socket of
        // another test would keep its port taken after that test closed it.
        // (glibc ≥ 2.34 has it; Swift's Glibc module does not declare it.)
        guard let closeFrom = Self.addCloseFrom else {
            throw TestDaemonError.didNotStart("\(executable): this C library cannot close inherited descriptors")
        }
        _ = closeFrom(&actions, 3)
        // The child starts with no signal blocked and default handlers:
        // threads of this process block some, and a child inherits its mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw TestDaemonError.didNotStart("\(executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
    ).map { unsafeBitCast($0, to: AddCloseFrom.self) }

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
