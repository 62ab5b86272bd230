import Foundation

/// Whether the suite runs under a sanitizer (`make tsan` sets
/// `CAST_SANITIZER`). A ThreadSanitizer build runs 5–15 times slower, so
/// real-time tests keep their correctness checks there but not their
/// throughput floors, which only mean something at full speed.
public enum Sanitizers {
    /// `true` under `make tsan`.
    public static let areActive = ProcessInfo.processInfo.environment["CAST_SANITIZER"] != nil
}
