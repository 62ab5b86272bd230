import CastRemoteDisplay

/// Makes captured 32-bit pictures into the I420 frames a session encodes,
/// with CastRemoteDisplay's ``PackedPictureConverter`` (libyuv): scaled to
/// the frame size with the aspect ratio kept, converted straight into the
/// session's pooled buffer.
//
// @unchecked Sendable: the converter's scratch memory is used by one thread
// at a time — a capture thread owns its converter;
// `ScreenCapture.captureFrame(into:)` uses its own only under the lock that
// also guards the grabber.
final class FrameConverter: @unchecked Sendable {
    private var converter = PackedPictureConverter()

    init() {}

    /// Scales and converts `image` into `frame` (I420); an empty image
    /// (a window off screen) makes a black frame.
    func convert(_ image: CapturedImage, into frame: inout PixelBuffer) {
        guard let base = image.base, image.width > 0, image.height > 0,
            let picture = try? PackedPicture(
                bytes: UnsafeRawBufferPointer(
                    start: base, count: image.bytesPerRow * (image.height - 1) + image.width * 4),
                width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
                format: image.order == .bgrx ? .bgra : .rgba)
        else {
            frame.paintBlack()
            return
        }
        // Capture asks for I420 frames only; a converter refuses nothing else.
        try? self.converter.convert(picture, into: &frame)
    }
}
