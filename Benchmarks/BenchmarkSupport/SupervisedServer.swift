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

    /// Starts `command` (a shell command line) in the background.
    public init(_ command: String) throws {
        let script = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
            \(command) </dev/null >/dev/null 2>&1 &
            server=$!
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
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
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/bash", &actions, nil, &argv, environ)
        guard result == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(result), userInfo: [NSLocalizedDescriptionKey: command])
        }
        self.supervisor = pid
    }
}
