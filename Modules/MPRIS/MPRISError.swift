/// Why an ``MPRISPlayer`` could not start.
public struct MPRISError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    public enum Code: Sendable, Hashable {
        /// No session bus could be reached (none running, or `DBUS_SESSION_BUS_ADDRESS` unset).
        case busUnavailable
        /// The player's bus name is owned by another connection.
        case nameTaken
    }

    /// What went wrong.
    public var code: Code
    /// The bus's own words.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A one-line description for logs.
    public var description: String { "\(self.code): \(self.message)" }
}
