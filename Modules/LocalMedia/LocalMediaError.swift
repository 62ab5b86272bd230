public import CastCommon

/// Why a local file or folder cannot be played, or its playback failed.
public struct LocalMediaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// No file or folder at the path given.
        case notFound
        /// A folder without media files in it.
        case noMedia
        /// Its type cannot be told from the extension, and nothing read it.
        case unknownType
        /// A type Cast devices do not play, and it cannot be converted here.
        case unplayable
        /// The device cannot play it and conversion is off (``LocalMedia/ConvertMode/never``).
        case conversionOff
        /// Playing it as asked needs ffprobe or ffmpeg, which are not installed.
        case toolsMissing
        /// The subtitle stream asked for to burn in is not in the file.
        case subtitleStreamNotFound
        /// The sound asked for (``AudioChoice``) is not in the file.
        case audioStreamNotFound
        /// The file cannot be converted as asked (the conversion plan refused it).
        case cannotConvert
        /// The subtitles asked for (a number or a language) are not among the item's tracks.
        case subtitleTrackNotFound
        /// A local file (media or subtitles) without a ``LocalMedia`` to serve it.
        case needsServer
        /// The receiver never fetched anything from this machine's server:
        /// something (a firewall, another network) keeps it from reaching it.
        case unreachable
        /// The receiver stopped playing with an error: it most likely cannot
        /// decode the media (its codecs, profile or bitrate).
        case undecodable
        /// The receiver kept buffering, even after the media was loaded again:
        /// the link is too slow for it.
        case stalled
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in one sentence naming the file.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { self.message }
}

extension LocalMediaError: CastCategorizedError {
    /// `CastErrorCategory.mediaFailed` for playback that failed on the
    /// device, `CastErrorCategory.invalidInput` for what was named to play.
    public var category: CastErrorCategory {
        [.unreachable, .undecodable, .stalled].contains(self.code) ? .mediaFailed : .invalidInput
    }

    /// The message.
    public var userMessage: String { self.message }
}
