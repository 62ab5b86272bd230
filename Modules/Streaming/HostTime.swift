#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A capture time on the host's monotonic clock, shared by audio and video.
///
/// The iOS SDK stamps frames with host time (`mach_absolute_time`); on Linux
/// that is `CLOCK_MONOTONIC`. The receiver plays each frame at its capture
/// time plus the target delay, so stamping audio and video from this one
/// clock is what keeps them in sync.
public struct HostTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary, fixed origin (the clock's, usually boot).
    public var nanoseconds: Int64

    /// Creates a time from nanoseconds on the host clock.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The current host time.
    public static var now: HostTime {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return HostTime(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// The time `frames` samples after this one at `sampleRate`.
    public func advanced(byFrames frames: Int, sampleRate: Int) -> HostTime {
        HostTime(nanoseconds: self.nanoseconds + Int64(frames) * 1_000_000_000 / Int64(sampleRate))
    }

    /// The time `duration` after (or before, if negative) this one.
    public func advanced(by duration: Duration) -> HostTime {
        let (seconds, attoseconds) = duration.components
        return HostTime(nanoseconds: self.nanoseconds + seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The duration from this time to `other`.
    public func duration(to other: HostTime) -> Duration {
        Duration(nanoseconds: other.nanoseconds - self.nanoseconds)
    }

    public static func < (lhs: HostTime, rhs: HostTime) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public var description: String { "\(self.nanoseconds) ns" }
}
