public import CastCommon

/// Every error CastRemoteDisplay throws: a stable ``Code``, a message for
/// people, and the underlying cause where there is one.
public struct CastRemoteDisplayError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { self.name }

        /// A configuration value is out of its documented range.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A frame's pixel format or dimensions do not match what the encoder was configured for.
        public static let frameFormatMismatch = Code("frameFormatMismatch")
        /// Audio samples do not match the declared layout (for example, a channel count).
        public static let audioFormatMismatch = Code("audioFormatMismatch")
        /// The codec library reported a failure; ``CastRemoteDisplayError/cause`` holds its code.
        public static let codecFailure = Code("codecFailure")
        /// Every pooled buffer is in use; the item was not processed.
        public static let poolExhausted = Code("poolExhausted")
        /// OpenSSL failed to make a key or start the frame cipher.
        public static let cryptoFailure = Code("cryptoFailure")
        /// The receiver's UDP address cannot be resolved or a socket cannot be opened.
        public static let networkFailure = Code("networkFailure")
        /// The channel is not attached to a receiver app; connect the session first.
        public static let notConnected = Code("notConnected")
        /// No ANSWER arrived within the configuration's answer timeout.
        public static let answerTimedOut = Code("answerTimedOut")
        /// The receiver refused the OFFER; ``CastRemoteDisplayError/cause`` is an ``OfferRejection``.
        public static let offerRejected = Code("offerRejected")
        /// The receiver accepted none of the offered streams.
        public static let noAcceptableStream = Code("noAcceptableStream")
        /// The ANSWER is malformed (no UDP port, stream lists that do not match).
        public static let invalidAnswer = Code("invalidAnswer")
        /// The session ended; nothing more can be sent on it.
        public static let sessionEnded = Code("sessionEnded")
        /// A media file (Y4M video, WAV sound) is unreadable, malformed or in a format not supported.
        public static let invalidFile = Code("invalidFile")
        /// The receiver did not launch the Remote Display app (it does not
        /// have it, refused, or did not answer); the cause is the receiver's error.
        public static let launchFailed = Code("launchFailed")
        /// The device has no screen (a speaker, a speaker group): it is never
        /// offered video; send it sound with ``AudioCastSession``.
        public static let noScreen = Code("noScreen")
        /// The device has no sound output (its capabilities lack audio out).
        public static let noSoundOutput = Code("noSoundOutput")
    }

    /// A failure code reported by a C library (libvpx, libopus, libsamplerate).
    public struct LibraryFailure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The library that failed, e.g. `libvpx`.
        public var library: String
        /// Its numeric status code.
        public var status: Int32
        /// Its own description of the status.
        public var detail: String
        public var description: String { "\(self.library) status \(self.status): \(self.detail)" }

        /// Creates a failure of `library` with its `status` and its own `detail`.
        public init(library: String, status: Int32, detail: String) {
            self.library = library
            self.status = status
            self.detail = detail
        }
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error underneath, if any (often a ``LibraryFailure``).
    public var cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        if let cause = self.cause {
            return "\(self.code): \(self.message) (\(cause))"
        }
        return "\(self.code): \(self.message)"
    }
}

extension CastRemoteDisplayError: CastCategorizedError {
    /// A refused offer, an answer that did not come, an unreadable file, an
    /// app the device would not run (or cannot: no screen, no sound output);
    /// `CastErrorCategory.other` otherwise.
    public var category: CastErrorCategory {
        switch self.code {
        case .offerRejected, .noAcceptableStream: .offerRejected
        case .answerTimedOut: .timedOut
        case .invalidFile: .invalidInput
        case .launchFailed, .noScreen, .noSoundOutput: .launchFailed
        default: .other
        }
    }

    /// The message, with the receiver's own reason for a refused offer.
    public var userMessage: String {
        guard let rejection = self.cause as? OfferRejection, let reason = rejection.reason else { return self.message }
        return "\(self.message): \(reason)"
    }
}
