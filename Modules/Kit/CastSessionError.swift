public import CastChannels
public import CastCommon
import CastTransport

/// Every error CastKit throws or reports: a stable ``Code``, a message for
/// people, and the cause underneath (a `CastTransportError` or a
/// `CastChannelError`).
public struct CastSessionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's stable name.
        public var description: String { self.name }

        /// The device has no address to connect to.
        public static let noAddress = Code("noAddress")
        /// The connection could not be made, or was lost while starting; the cause is a `CastTransportError`.
        public static let connectionFailed = Code("connectionFailed")
        /// The receiver would not launch the app; the cause is a `CastChannelError` with the reason.
        public static let launchFailed = Code("launchFailed")
        /// A receiver request failed (timeout, rejection); the cause says which.
        public static let requestFailed = Code("requestFailed")
        /// The receiver-app session to rejoin no longer runs.
        public static let applicationNotRunning = Code("applicationNotRunning")
        /// The app lists no transport to connect to.
        public static let applicationUnreachable = Code("applicationUnreachable")
        /// Every reconnection attempt the policy allowed failed.
        public static let reconnectFailed = Code("reconnectFailed")
        /// The session store could not be read or written; the cause says why.
        public static let sessionStoreFailed = Code("sessionStoreFailed")
        /// The start was abandoned: the session was ended, or another one started.
        public static let cancelled = Code("cancelled")
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

    /// The LAUNCH_ERROR reason, for ``Code/launchFailed`` caused by the receiver's refusal.
    public var launchErrorReason: LaunchErrorReason? {
        (self.cause as? CastChannelError)?.launchErrorReason
    }

    /// A one-line description for logs.
    public var description: String {
        if let cause = self.cause {
            return "\(self.code): \(self.message) (\(cause))"
        }
        return "\(self.code): \(self.message)"
    }

    /// The session error for whatever a step of connecting threw.
    static func wrapping(_ error: any Error, while step: String) -> CastSessionError {
        switch error {
        case let error as CastSessionError:
            return error
        case let error as CastTransportError:
            return CastSessionError(.connectionFailed, "the connection failed while \(step)", cause: error)
        case let error as CastChannelError where error.code == .launchFailed:
            return CastSessionError(.launchFailed, "the receiver did not launch the app", cause: error)
        case let error as CastChannelError where error.code == .disconnected || error.code == .notConnected:
            return CastSessionError(.connectionFailed, "the connection ended while \(step)", cause: error)
        case let error as CastChannelError where error.code == .cancelled:
            return CastSessionError(.cancelled, "cancelled while \(step)", cause: error)
        default:
            return CastSessionError(.requestFailed, "a request failed while \(step)", cause: error)
        }
    }
}

extension CastSessionError: CastCategorizedError {
    /// What kept the session from starting or going on.
    public var category: CastErrorCategory {
        switch self.code {
        case .noAddress: .deviceNotFound
        case .connectionFailed, .reconnectFailed: .connectionFailed
        case .launchFailed, .applicationNotRunning, .applicationUnreachable: .launchFailed
        default: .other
        }
    }

    /// The message, with the cause's own sentence where it has one.
    public var userMessage: String {
        (self.cause as? any CastCategorizedError).map { "\(self.message): \($0.userMessage)" } ?? self.message
    }
}
