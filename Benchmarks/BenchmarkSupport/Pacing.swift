import CastRemoteDisplay

#if canImport(Glibc)
import Glibc
#endif

/// A real-time frame clock: frame `index` is due `index` frame intervals
/// after the pace was made. Real-time benchmarks wait on it by blocking in
/// `clock_nanosleep`, which, unlike `Task.sleep`, allocates nothing, so the
/// allocation counts are the sender's alone.
public struct RealTimePace: Sendable {
    private let start = HostTime.now
    private let interval: Duration

    /// A pace of `framesPerSecond`, starting now.
    public init(framesPerSecond: Int = 30) {
        self.interval = .seconds(1) / framesPerSecond
    }

    /// Blocks the calling thread until frame `index` is due.
    public func wait(for index: Int) {
        let due = self.start.advanced(by: self.interval * index)
        var deadline = timespec(
            tv_sec: Int(due.nanoseconds / 1_000_000_000), tv_nsec: Int(due.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}
