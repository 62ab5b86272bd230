public import Foundation

/// A server program (Xvfb, an HTTP server) run for as long as this benchmark
/// process lives.
///
/// Started through a small shell that first closes every descriptor it
/// inherited — the benchmark plugin reads this process's output until the
/// last holder of that pipe closes it, so a server keeping it open would
/// hold the whole run — and then kills the server when this process is gone.
public final class SupervisedServer: Sendable {
    private let supervisor: Process

    /// Starts `command` (a shell command line) in the background.
    public init(_ command: String) throws {
        let script = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
            \(command) </dev/null >/dev/null 2>&1 &
            server=$!
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            kill -9 $server
            """
        let supervisor = Process()
        supervisor.executableURL = URL(fileURLWithPath: "/bin/bash")
        supervisor.arguments = ["-c", script]
        supervisor.standardInput = FileHandle.nullDevice
        supervisor.standardOutput = FileHandle.nullDevice
        supervisor.standardError = FileHandle.nullDevice
        try supervisor.run()
        self.supervisor = supervisor
    }
}
