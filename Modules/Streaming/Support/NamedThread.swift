package import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Thread {
    /// Starts a thread named `name` running `body`. The name shows in
    /// `top -H`, `perf` and `/proc/PID/task/*/comm` (the benchmarks read each
    /// thread's CPU clock by it); Linux keeps at most 15 bytes and drops a
    /// longer name whole. The thread names itself with `pthread_setname_np`:
    /// Foundation on Linux applies a name set before `start()` to nothing,
    /// and `Thread.current.name` set at once from the new thread now and then
    /// reached only Foundation's object, not the kernel (CI under
    /// ThreadSanitizer saw the network thread keep its parent's name).
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8.count <= 15, "Linux drops a thread name longer than 15 bytes: \(name)")
        Thread {
            _ = linuxSetThreadName(pthread_self(), name)
            body()
        }.start()
    }
}

/// `pthread_setname_np(3)`, which Glibc's Swift module leaves out (it needs `_GNU_SOURCE`).
@_silgen_name("pthread_setname_np")
private func linuxSetThreadName(_ thread: pthread_t, _ name: UnsafePointer<CChar>) -> CInt
