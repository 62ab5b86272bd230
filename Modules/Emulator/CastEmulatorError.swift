/// Every error CastEmulator throws: a stable ``Code``, a message for people,
/// and the underlying cause where there is one.
public struct CastEmulatorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's stable name.
        public var description: String { self.name }

        /// A key or certificate could not be generated or encoded.
        public static let identityFailure = Code("identityFailure")
        /// The TLS server could not be set up or bound to its address.
        public static let bindFailed = Code("bindFailed")
        /// The emulator is not running (or already running, for `start()`).
        public static let invalidState = Code("invalidState")
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// A one-line description for logs.
    public var description: String {
        if let cause = self.cause {
            return "\(self.code): \(self.message) (\(cause))"
        }
        return "\(self.code): \(self.message)"
    }
}
