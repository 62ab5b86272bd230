/// Where a ``ScreenCapture``'s pictures come from: an X server
/// (`X11Grabber`) or a PipeWire screen-cast stream (`PipeWireGrabber`).
/// Used by one thread at a time.
protocol FrameGrabber: AnyObject, Sendable {
    /// The size of the source now, pixels.
    var size: (width: Int, height: Int) { get throws(CaptureError) }
    /// Whether the picture changed since it was last handed out.
    func hasChanged() throws(CaptureError) -> Bool
    /// Hands the picture as it is now to `body`, valid only during the
    /// call; `false` (and `body` not called) while the source has not
    /// delivered any picture yet.
    func withCurrentImage(_ body: (CapturedImage) -> Void) throws(CaptureError) -> Bool
}
