/// Why a ``SystemSleepMonitor`` could not start.
public struct SystemSleepError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// The system bus could not be reached (none running, or its address is wrong).
        case busUnavailable
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in words.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// One sentence naming the cause.
    public var description: String {
        switch self.code {
        case .busUnavailable: "no system bus: \(self.message)"
        }
    }
}
