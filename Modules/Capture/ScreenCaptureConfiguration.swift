/// What a ``ScreenCapture`` captures and how often.
public struct ScreenCaptureConfiguration: Sendable, Hashable {
    /// The X display, e.g. `:0`; `nil` reads the `DISPLAY` environment variable.
    public var display: String?
    /// The screen, a monitor or a window. Default ``CaptureSource/screen``.
    public var source: CaptureSource
    /// Whether the cursor is drawn into the pictures. Default `true`.
    public var showsCursor: Bool
    /// Pictures per second while something changes, 1…60. Default 30.
    public var frameRate: Int
    /// Pictures per second while nothing changes, 1…``frameRate``: enough
    /// that the receiver never starves, little enough that a still screen
    /// costs almost nothing. Default 1.
    public var idleFrameRate: Int

    /// Creates a configuration.
    public init(
        display: String? = nil, source: CaptureSource = .screen, showsCursor: Bool = true, frameRate: Int = 30,
        idleFrameRate: Int = 1
    ) {
        self.display = display
        self.source = source
        self.showsCursor = showsCursor
        self.frameRate = frameRate
        self.idleFrameRate = idleFrameRate
    }

    func validated() throws(CaptureError) -> Self {
        guard (1...60).contains(self.frameRate) else {
            throw CaptureError(.invalidConfiguration, "frame rate \(self.frameRate) is outside 1…60")
        }
        guard (1...self.frameRate).contains(self.idleFrameRate) else {
            throw CaptureError(
                .invalidConfiguration, "idle frame rate \(self.idleFrameRate) is outside 1…\(self.frameRate)")
        }
        return self
    }
}
