/// Why the tray or a notification could not be shown.
public struct TrayError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// No session bus to connect to (`DBUS_SESSION_BUS_ADDRESS` unset, or its daemon gone).
        case busUnavailable
        /// Another program owns the tray's bus name.
        case nameTaken
        /// The desktop has no notification service, or it refused the notification.
        case notificationFailed
    }

    /// The kind of failure.
    public var code: Code
    /// What the bus said.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// One sentence naming the cause.
    public var description: String {
        switch self.code {
        case .busUnavailable: "no desktop session bus: \(self.message)"
        case .nameTaken: "another tray owns the name: \(self.message)"
        case .notificationFailed: "the desktop did not show the notification: \(self.message)"
        }
    }
}
