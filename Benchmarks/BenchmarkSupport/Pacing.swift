public import CastRemoteDisplay

#if canImport(Glibc)
import Glibc
#endif

/// Blocks the calling thread until `time` (CLOCK_MONOTONIC, as `HostTime`).
/// Real-time benchmarks pace with it: unlike `Task.sleep` it allocates
/// nothing, so the allocation counts are the sender's alone.
public func sleep(until time: HostTime) {
    var deadline = timespec(
        tv_sec: Int(time.nanoseconds / 1_000_000_000), tv_nsec: Int(time.nanoseconds % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
}
