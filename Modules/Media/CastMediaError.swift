import CastChannels
public import CastCommon

/// Every error a media request ends with: a stable ``Code``, a message for
/// people, what the receiver said (reason, detailed error code), and the
/// cause underneath.
public struct CastMediaError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's stable name.
        public var description: String { self.name }

        /// The receiver could not load the media (LOAD_FAILED); see ``CastMediaError/detailedErrorCode``.
        public static let loadFailed = Code("loadFailed")
        /// A newer load replaced this one on the receiver (LOAD_CANCELLED).
        public static let loadCancelled = Code("loadCancelled")
        /// This sender issued a newer request of the same kind before this one was answered.
        public static let superseded = Code("superseded")
        /// The player cannot do this in its state (INVALID_PLAYER_STATE).
        public static let invalidPlayerState = Code("invalidPlayerState")
        /// The receiver rejected the request (INVALID_REQUEST); see ``CastMediaError/reason``.
        public static let invalidRequest = Code("invalidRequest")
        /// The player failed (ERROR); see ``CastMediaError/detailedErrorCode``.
        public static let playerError = Code("playerError")
        /// The current media does not support the command (its supported-command bits); nothing was sent.
        public static let unsupportedCommand = Code("unsupportedCommand")
        /// There is no media session to command; nothing was sent.
        public static let noMediaSession = Code("noMediaSession")
        /// No reply within the request timeout.
        public static let timedOut = Code("timedOut")
        /// The connection ended while the request was pending, or the channel is not connected.
        public static let disconnected = Code("disconnected")
        /// The task waiting for the reply was cancelled.
        public static let cancelled = Code("cancelled")
        /// The request could not be sent, or the reply makes no sense; the cause says which.
        public static let requestFailed = Code("requestFailed")
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The receiver's `reason`, for ``Code/invalidRequest``.
    public var reason: String?
    /// The receiver's `detailedErrorCode` (100 MEDIA_UNKNOWN, 104 MEDIA_SRC_NOT_SUPPORTED, …).
    public var detailedErrorCode: Int?
    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, reason: String? = nil, detailedErrorCode: Int? = nil, cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.reason = reason
        self.detailedErrorCode = detailedErrorCode
        self.cause = cause
    }

    /// A one-line description for logs.
    public var description: String {
        var text = "\(self.code): \(self.message)"
        if let reason = self.reason { text += " [\(reason)]" }
        if let detailedErrorCode = self.detailedErrorCode { text += " [detailed error \(detailedErrorCode)]" }
        if let cause = self.cause { text += " (\(cause))" }
        return text
    }

    /// The media error for a channel error.
    init(_ error: CastChannelError) {
        switch error.code {
        case .timedOut: self.init(.timedOut, error.message, cause: error)
        case .disconnected, .notConnected: self.init(.disconnected, error.message, cause: error)
        case .cancelled: self.init(.cancelled, error.message, cause: error)
        default: self.init(.requestFailed, error.message, cause: error)
        }
    }
}

extension CastMediaError: CastCategorizedError {
    /// `CastErrorCategory.timedOut` for a reply that did not come,
    /// `CastErrorCategory.mediaFailed` otherwise.
    public var category: CastErrorCategory { self.code == .timedOut ? .timedOut : .mediaFailed }

    /// The message, with the receiver's reason where it gave one.
    public var userMessage: String { self.reason.map { "\(self.message) (\($0))" } ?? self.message }
}
