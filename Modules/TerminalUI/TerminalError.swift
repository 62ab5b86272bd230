/// Why a ``Terminal`` could not be taken.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// Standard input is not a terminal (a pipe, a file, a service).
        case notATerminal
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
        case .notATerminal: "standard input is not a terminal: \(self.message)"
        }
    }
}
