import Foundation

/// The names of this process's threads now (`/proc/self/task/*/comm`).
public func processThreadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap {
        try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
    }
}

/// The names of this process's threads once they satisfy `condition`, or
/// as they are when `timeout` has passed: threads name themselves when
/// they first run, and end a little after what started them.
public func processThreadNames(within timeout: Duration, until condition: ([String]) -> Bool) async throws
    -> [String]
{
    let deadline = ContinuousClock.now + timeout
    var names = processThreadNames()
    while !condition(names), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
        names = processThreadNames()
    }
    return names
}

/// Whether the threads of every Remote Display sender (`cast.encoder`,
/// `cast.network`) have ended, waiting at most `timeout` for them.
public func senderThreadsEnded(within timeout: Duration = .seconds(5)) async throws -> Bool {
    let names = try await processThreadNames(within: timeout) { names in
        !names.contains { $0 == "cast.encoder" || $0 == "cast.network" }
    }
    return !names.contains { $0 == "cast.encoder" || $0 == "cast.network" }
}
