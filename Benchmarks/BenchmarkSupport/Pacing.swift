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
    private let framesPerSecond: Int

    /// A pace of `framesPerSecond`, starting now.
    public init(framesPerSecond: Int = 30) {
        self.framesPerSecond = framesPerSecond
    }

    /// Blocks the calling thread until frame `index` is due.
    public func wait(for index: Int) {
        // By frame count, as the sender stamps audio: `Duration * Int` is
        // generic and slow, and would be paid in every measured frame.
        let due = self.start.advanced(byFrames: index, sampleRate: self.framesPerSecond)
        var deadline = timespec(
            tv_sec: Int(due.nanoseconds / 1_000_000_000), tv_nsec: Int(due.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}
