import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time as the kernel accounts it: the process's, or that of the
/// threads that carry a name (the sender names its encoder and network
/// threads, so a benchmark can tell where the time goes).
public enum CPUClock {
    /// This process's user and system CPU time so far (`getrusage`).
    public static func process() -> (user: Duration, system: Duration) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func duration(_ time: timeval) -> Duration {
            .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec))
        }
        return (duration(usage.ru_utime), duration(usage.ru_stime))
    }

    /// This process's CPU time so far, all threads, to the nanosecond
    /// (`CLOCK_PROCESS_CPUTIME_ID`; `getrusage` here counts in 10 ms ticks,
    /// coarse against a few hundred milliseconds of audio encoding).
    public static func processTotal() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }

    /// The calling thread's CPU time so far, to the nanosecond
    /// (`CLOCK_THREAD_CPUTIME_ID`); allocates nothing, so it can bracket
    /// work whose allocations are counted.
    public static func thread() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }

    /// The CPU time so far of this process's threads named `name` (Linux
    /// keeps the first 15 bytes of a thread's name), in nanoseconds from
    /// `/proc/self/task/*/schedstat`.
    public static func threads(named name: String) -> Duration {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var total = Duration.zero
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .newlines) == name,
                let schedstat = try? String(contentsOfFile: "/proc/self/task/\(task)/schedstat", encoding: .utf8),
                let onCPU = schedstat.split(separator: " ").first.flatMap({ Int64($0) })
            else { continue }
            total += .nanoseconds(onCPU)
        }
        return total
    }
}
