/// What a ``ScreenCapture`` did since it started.
public struct ScreenCaptureStatistics: Sendable, Hashable {
    /// Pictures captured, converted and handed to the session.
    public var framesCaptured = 0
    /// Ticks at which nothing had changed, so nothing was captured.
    public var ticksUnchanged = 0
    /// Pictures not captured because every pooled buffer was in use, or
    /// refused by the session (interrupted).
    public var framesDropped = 0
    /// Mean time to read and convert one picture, over the last 30.
    public var averageCaptureTime: Duration = .zero

    /// Creates statistics.
    public init() {}
}
