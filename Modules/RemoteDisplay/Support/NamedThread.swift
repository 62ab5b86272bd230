package import Foundation

extension Thread {
    /// Starts a thread named `name` running `body`. The name shows in
    /// `top -H`, `perf` and `/proc/PID/task/*/comm` (the benchmarks read each
    /// thread's CPU clock by it); Linux keeps at most 15 bytes and drops a
    /// longer name whole. The thread names itself: Foundation on Linux
    /// applies a name set before `start()` to nothing.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "Linux drops a thread name longer than 15 bytes: \(name)")
        Thread {
            Thread.current.name = name
            body()
        }.start()
    }
}
