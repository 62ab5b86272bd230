import Foundation

/// The process that made a sink: its id and its start time, as Linux keeps
/// them in `/proc/<pid>/stat`, written `pid:start` into the sink's
/// `cast.owner` property. A sink whose owner no longer runs was left by a
/// process that ended without removing it, and may be removed; one whose
/// owner runs (another `cast speakers` of this or another user on the same
/// sound server) is not. The start time tells a process from a later one
/// given the same id.
package struct SinkOwner: Sendable, Hashable, CustomStringConvertible {
    /// The sink property that holds the owner.
    static let property = "cast.owner"

    /// The owner's process id.
    package var pid: Int32
    /// When the process started, in clock ticks after boot (field 22 of `/proc/<pid>/stat`).
    package var startTime: UInt64

    /// This process; `nil` only where `/proc` cannot be read.
    static let current: SinkOwner? = SinkOwner.process(getpid())

    /// The process `pid` as it runs now; `nil` when none does.
    static func process(_ pid: Int32) -> SinkOwner? {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let startTime = Self.startTime(fromStat: stat)
        else { return nil }
        return SinkOwner(pid: pid, startTime: startTime)
    }

    /// Field 22 of a `/proc/<pid>/stat` line: the fields after the command,
    /// which is in parentheses and may hold spaces and parentheses itself.
    package static func startTime(fromStat stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// Reads `pid:start`; `nil` for anything else.
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let pid = Int32(parts[0]), pid > 0, let startTime = UInt64(parts[1]) else {
            return nil
        }
        self.init(pid: pid, startTime: startTime)
    }

    init(pid: Int32, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }

    /// The owner written in a `module-null-sink` argument, `cast.owner='pid:start'`; `nil` when none is.
    package init?(moduleArgument argument: String) {
        guard let start = argument.range(of: "\(Self.property)='") else { return nil }
        let rest = argument[start.upperBound...]
        guard let end = rest.firstIndex(of: "'") else { return nil }
        self.init(rest[..<end])
    }

    /// Whether the process still runs: the same id, started at the same time.
    var isRunning: Bool { Self.process(self.pid) == self }

    package var description: String { "\(self.pid):\(self.startTime)" }
}
