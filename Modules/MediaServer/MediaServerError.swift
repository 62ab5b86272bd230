public import CastCommon

/// Every error CastMediaServer throws: a stable ``Code``, a message for
/// people, and the cause underneath where there is one.
public struct MediaServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { self.name }

        /// No route toward the device: no local address it could reach.
        public static let noRoute = Code("noRoute")
        /// The address or port could not be bound.
        public static let bindFailed = Code("bindFailed")
        /// A file to serve does not exist, is not a regular file, or cannot be read.
        public static let unreadableFile = Code("unreadableFile")
        /// A setting is out of its documented range.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The server was stopped, or serves its maximum number of items.
        public static let unavailable = Code("unavailable")
        /// ffprobe could not be run, or failed, or said something unreadable.
        public static let probeFailed = Code("probeFailed")
        /// The media needs converting for the device and ffmpeg is not installed;
        /// the message names what the device cannot play.
        public static let unsupportedMedia = Code("unsupportedMedia")
        /// ffmpeg could not be started, or failed while converting.
        public static let conversionFailed = Code("conversionFailed")
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

    public var description: String {
        self.cause.map { "\(self.code): \(self.message) (\($0))" } ?? "\(self.code): \(self.message)"
    }
}

extension MediaServerError: CastCategorizedError {
    /// `CastErrorCategory.invalidInput` for a file that cannot be read or
    /// probed, `CastErrorCategory.other` otherwise.
    public var category: CastErrorCategory {
        [.unreadableFile, .probeFailed].contains(self.code) ? .invalidInput : .other
    }

    /// The message.
    public var userMessage: String { self.message }
}
