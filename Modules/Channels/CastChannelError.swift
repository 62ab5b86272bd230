public import CastCommon
import CastTransport

/// Every error CastChannels throws: a stable ``Code``, a message for people,
/// the receiver's own reason where it gave one, and the cause underneath.
public struct CastChannelError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's stable name.
        public var description: String { self.name }

        /// A channel namespace does not start with `urn:x-cast:`.
        public static let invalidNamespace = Code("invalidNamespace")
        /// The channel is not attached to a live connection.
        public static let notConnected = Code("notConnected")
        /// Too many messages are waiting to be written on the connection.
        public static let sendBufferFull = Code("sendBufferFull")
        /// An outgoing message is not valid or is too large.
        public static let invalidMessage = Code("invalidMessage")
        /// No reply arrived within the request's timeout.
        public static let timedOut = Code("timedOut")
        /// The task awaiting the reply was cancelled.
        public static let cancelled = Code("cancelled")
        /// The connection ended (or the channel was detached) while the request was pending.
        public static let disconnected = Code("disconnected")
        /// The receiver answered LAUNCH with LAUNCH_ERROR; ``CastChannelError/launchErrorReason`` says why.
        public static let launchFailed = Code("launchFailed")
        /// The receiver answered with INVALID_REQUEST; ``CastChannelError/reason`` says why.
        public static let invalidRequest = Code("invalidRequest")
        /// No app other than the idle screen runs on the receiver (``CastDeviceLink/runningApplication(attaching:)``).
        public static let noApplication = Code("noApplication")
        /// The reply is not one the request can have (an unknown type, or a status missing what was asked for).
        public static let unexpectedReply = Code("unexpectedReply")
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The receiver's reason string (`reason` in LAUNCH_ERROR or INVALID_REQUEST), if it sent one.
    public var reason: String?
    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, reason: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.cause = cause
    }

    /// The LAUNCH_ERROR reason, for ``Code/launchFailed``; `nil` otherwise.
    public var launchErrorReason: LaunchErrorReason? {
        guard self.code == .launchFailed else { return nil }
        return self.reason.map(LaunchErrorReason.init(rawValue:))
    }

    /// A one-line description for logs.
    public var description: String {
        var text = "\(self.code): \(self.message)"
        if let reason = self.reason { text += " [\(reason)]" }
        if let cause = self.cause { text += " (\(cause))" }
        return text
    }

    /// The channel error for a transport error from sending.
    init(sending error: CastTransportError) {
        switch error.code {
        case .sendBufferFull:
            self.init(.sendBufferFull, "the connection's send buffer is full", cause: error)
        case .invalidMessage, .messageTooLarge:
            self.init(.invalidMessage, "the message cannot be sent", cause: error)
        default:
            self.init(.notConnected, "the connection is not connected", cause: error)
        }
    }
}

extension CastChannelError: CastCategorizedError {
    /// A launch the receiver refused, a reply that did not come, or a
    /// connection that ended; `CastErrorCategory.other` otherwise.
    public var category: CastErrorCategory {
        switch self.code {
        case .launchFailed, .noApplication: .launchFailed
        case .timedOut: .timedOut
        case .disconnected, .notConnected: .connectionFailed
        default: .other
        }
    }

    /// The message, with the receiver's reason where it gave one.
    public var userMessage: String { self.reason.map { "\(self.message) (\($0))" } ?? self.message }
}
