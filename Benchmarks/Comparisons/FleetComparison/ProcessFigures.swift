import Foundation

/// What a process costs, read from the kernel: resident memory and threads
/// (`/proc/self/status`), CPU time (`getrusage`), and `CLOCK_MONOTONIC`,
/// the clock cast-receiver and the pychromecast script stamp with too.
struct ProcessFigures: Sendable {
    var residentKiB: Int
    var threads: Int

    static func current() -> ProcessFigures {
        var figures = ProcessFigures(residentKiB: 0, threads: 0)
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") {
            let words = line.split(whereSeparator: \.isWhitespace)
            guard words.count >= 2, let value = Int(words[1]) else { continue }
            if words[0] == "VmRSS:" { figures.residentKiB = value }
            if words[0] == "Threads:" { figures.threads = value }
        }
        return figures
    }

    /// User and system CPU seconds this process has used.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// Latencies in milliseconds, summarised.
struct Latencies: Sendable {
    let sorted: [Double]
    let missing: Int

    init(milliseconds: [Double?]) {
        self.sorted = milliseconds.compactMap { $0 }.sorted()
        self.missing = milliseconds.count - self.sorted.count
    }

    /// Arrivals against the stamps they answer, both `CLOCK_MONOTONIC` nanoseconds.
    init(arrived: [UInt64?], since stamps: [UInt64]) {
        self.init(
            milliseconds: zip(arrived, stamps).map { arrival, stamp in
                arrival.map { Double(Int64(bitPattern: $0 &- stamp)) / 1e6 }
            })
    }

    func percentile(_ fraction: Double) -> Double {
        guard !self.sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(self.sorted.count)).rounded(.up)) - 1
        return self.sorted[min(max(rank, 0), self.sorted.count - 1)]
    }
}
