public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A server program (Xvfb, an HTTP server) run for as long as this benchmark
/// process lives.
///
/// Started with `posix_spawn` through a small shell that first closes every
/// descriptor it inherited above standard error — the benchmark plugin
/// reads this process's output until the last holder of that pipe closes
/// it, so a server keeping it would hold the whole run — and kills the
/// server when this process is gone. Not Foundation's `Process`: it watches
/// each child through a socket the child inherits, takes that socket's
/// closing for the child's exit and then waits for it without end, which
/// stalls every later `Process` in the benchmark (seen: curl never reaped,
/// the run hung).
public final class SupervisedServer: Sendable {
    /// The supervising shell's process id.
    public let supervisor: pid_t

    /// Starts `command` (a shell command line) in the background, its
    /// standard output and error going to `output` (a file path) or nowhere.
    public init(_ command: String, output: String = "/dev/null") throws {
        let script = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
            \(command) </dev/null >'\(output)' 2>&1 &
            server=$!
            trap 'kill -9 $server; exit 0' TERM
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 0.2; done
            kill -9 $server
            """
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = ["/bin/bash", "-c", script]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // The shell starts with no signal blocked and default handlers: the
        // spawning thread blocks SIGTERM (the Swift runtime's threads block
        // most signals) and a child inherits its mask, so `stop()` would wait forever.
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
        let result = posix_spawn(&pid, "/bin/bash", &actions, &attributes, &argv, environ)
        guard result == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(result), userInfo: [NSLocalizedDescriptionKey: command])
        }
        self.supervisor = pid
    }

    /// Reads `output` (the file a server writes) every 20 ms until `parse`
    /// finds what it looks for (a port it listens on), for at most `seconds`.
    public static func first<Value>(in output: String, within seconds: TimeInterval, _ parse: (String) -> Value?)
        -> Value?
    {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            usleep(20_000)
            if let value = parse((try? String(contentsOfFile: output, encoding: .utf8)) ?? "") { return value }
        }
        return nil
    }

    /// Stops the server (within 0.2 s) before this process ends.
    public func stop() {
        kill(self.supervisor, SIGTERM)
        var status: Int32 = 0
        waitpid(self.supervisor, &status, 0)
    }
}
