public import CastCommon

/// Every error CastCapture throws: a stable ``Code``, a message for people,
/// and the underlying cause where there is one.
public struct CaptureError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { self.name }

        /// No X server answers at the display named (or `DISPLAY` is unset).
        public static let displayUnavailable = Code("displayUnavailable")
        /// The X server lacks an extension capture needs (XFixes, DAMAGE or RandR 1.5).
        public static let extensionMissing = Code("extensionMissing")
        /// The output or window asked for does not exist.
        public static let sourceNotFound = Code("sourceNotFound")
        /// The captured window or output went away, or the display connection broke, while capturing.
        public static let sourceVanished = Code("sourceVanished")
        /// The screen's pixels are in a layout capture cannot convert (only 32-bit pixels are).
        public static let unsupportedPixelFormat = Code("unsupportedPixelFormat")
        /// A capture request failed (shared memory, an X request, a conversion).
        public static let captureFailed = Code("captureFailed")
        /// No sound server answers, or it refused the recording stream.
        public static let audioUnavailable = Code("audioUnavailable")
        /// A sound file cannot be read, holds no sound, or is not WAV while
        /// ffmpeg, which would decode it, is not installed (``SoundFile``).
        public static let unreadableSoundFile = Code("unreadableSoundFile")
        /// No XDG desktop portal with the ScreenCast interface answers on the
        /// session bus (or there is no session bus), or the portal failed
        /// (its backend could not capture: the Request's response 2).
        public static let portalUnavailable = Code("portalUnavailable")
        /// The user cancelled the screen-sharing dialog (the Request's
        /// response 1), or did not answer it in time.
        public static let permissionDenied = Code("permissionDenied")
        /// The PipeWire connection the portal grants could not be opened or used.
        public static let pipeWireUnavailable = Code("pipeWireUnavailable")
        /// The X display is Xwayland, a Wayland desktop's server for X
        /// programs: its screen shows only their windows, over black, so
        /// the screen or a monitor of it cannot be mirrored; share it through
        /// the desktop's portal (`CaptureSource.portal`) instead.
        public static let waylandDesktop = Code("waylandDesktop")
        /// The desktop makes no virtual monitor for a cast (`CaptureSource.virtualMonitor`):
        /// neither its portal, nor mutter (GNOME), nor sway is there to make one.
        public static let virtualMonitorUnavailable = Code("virtualMonitorUnavailable")
        /// A capture setting is out of its documented range, or capture is already running.
        public static let invalidConfiguration = Code("invalidConfiguration")
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
        if let cause = self.cause {
            return "\(self.code): \(self.message) (\(cause))"
        }
        return "\(self.code): \(self.message)"
    }
}

extension CaptureError: CastCategorizedError {
    /// `CastErrorCategory.invalidInput` for a sound file that cannot be
    /// read or a configuration out of range, `CastErrorCategory.captureFailed`
    /// otherwise.
    public var category: CastErrorCategory {
        [.unreadableSoundFile, .invalidConfiguration].contains(self.code) ? .invalidInput : .captureFailed
    }

    /// The message.
    public var userMessage: String { self.message }
}
