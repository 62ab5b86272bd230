import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Process {
    /// Starts the process with no signal blocked, whatever the calling
    /// thread blocks.
    ///
    /// A child inherits its parent thread's signal mask, and Foundation's
    /// `Process` does not reset it (swift-corelibs-foundation sets no
    /// `POSIX_SPAWN_SETSIGMASK`). The threads Swift concurrency and
    /// Dispatch run work on block most signals, SIGTERM among them
    /// (libdispatch's worker threads), so an ffmpeg started from one ignored
    /// `terminate()` and converted the rest of the film before a seek could
    /// start the next run (measured: 42 s for a jump of 28 segments).
    func runWithNoSignalBlocked() throws {
        var empty = sigset_t()
        var previous = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try self.run()
    }
}
