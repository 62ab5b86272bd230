public import CastCommon

/// Why the Cast speakers could not be set up or kept.
public struct SpeakersError: Error, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// No sound server answered (neither PulseAudio nor PipeWire's pulse server), or it went away.
        case soundServerUnavailable
        /// The server refused a request: a sink could not be made, changed or removed.
        case requestRefused
        /// A device's stream could not be started: no connection, or the device refused the app.
        case streamFailed
        /// The configuration is out of range.
        case invalidConfiguration
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
        case .soundServerUnavailable: "no sound server: \(self.message)"
        case .requestRefused: "the sound server refused: \(self.message)"
        case .streamFailed: "the stream could not start: \(self.message)"
        case .invalidConfiguration: "invalid configuration: \(self.message)"
        }
    }
}

extension SpeakersError: CastCategorizedError {
    /// `CastErrorCategory.captureFailed` without a sound server,
    /// `CastErrorCategory.invalidInput` for a configuration that cannot be
    /// used, `CastErrorCategory.other` otherwise.
    public var category: CastErrorCategory {
        switch self.code {
        case .soundServerUnavailable: .captureFailed
        case .invalidConfiguration: .invalidInput
        case .requestRefused, .streamFailed: .other
        }
    }

    /// The ``description``, which names what refused or is missing.
    public var userMessage: String { self.description }
}
