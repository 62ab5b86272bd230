import CYUV
import CastRemoteDisplay

/// Makes captured 32-bit pictures into the I420 frames a session encodes,
/// with libyuv (Chromium's own pixel library): scaled to the frame size with
/// the aspect ratio kept (black bars around a picture of another shape),
/// converted straight into the session's pooled buffer. A picture already
/// at the frame size is converted without scaling; otherwise one scratch
/// picture, kept between frames, holds the scaled pixels.
//
// @unchecked Sendable: the scratch memory is used by one thread at a time —
// a capture thread owns its converter; `ScreenCapture.captureFrame(into:)`
// uses its own only under the lock that also guards the grabber.
final class FrameConverter: @unchecked Sendable {
    private var scratch: UnsafeMutableRawPointer?
    private var scratchBytes = 0

    init() {}

    deinit {
        self.scratch?.deallocate()
    }

    /// Scales and converts `image` into `frame` (I420).
    func convert(_ image: CapturedImage, into frame: inout PixelBuffer) {
        let size = RemoteDisplayConfiguration.Resolution(width: frame.width, height: frame.height)
        guard let base = image.base, image.width > 0, image.height > 0 else {
            frame.withUnsafeMutablePlanes { Self.paintBlack($0, x: 0, y: 0, width: size.width, height: size.height) }
            return
        }
        let content =
            image.width == size.width && image.height == size.height
            ? VideoLetterbox.Rectangle(x: 0, y: 0, width: size.width, height: size.height)
            : VideoLetterbox.content(
                fitting: RemoteDisplayConfiguration.Resolution(width: image.width, height: image.height), in: size)
        let source: (base: UnsafeRawPointer, stride: Int)
        if content.width == image.width && content.height == image.height {
            source = (UnsafeRawPointer(base), image.bytesPerRow)
        } else {
            let scratch = self.scratch(bytes: content.width * content.height * 4)
            _ = ARGBScale(
                base.assumingMemoryBound(to: UInt8.self), Int32(image.bytesPerRow),
                Int32(image.width), Int32(image.height),
                scratch.assumingMemoryBound(to: UInt8.self), Int32(content.width * 4),
                Int32(content.width), Int32(content.height), kFilterBilinear)
            source = (UnsafeRawPointer(scratch), content.width * 4)
        }
        frame.withUnsafeMutablePlanes { planes in
            // A pooled buffer holds an older frame: the bars (none when the
            // picture fills the frame) are painted every time.
            Self.paintBars(planes, around: content, in: size)
            let chromaX = content.x / 2
            let chromaY = content.y / 2
            let y = planes.baseAddress(ofPlane: 0) + content.y * planes.bytesPerRow(ofPlane: 0) + content.x
            let u = planes.baseAddress(ofPlane: 1) + chromaY * planes.bytesPerRow(ofPlane: 1) + chromaX
            let v = planes.baseAddress(ofPlane: 2) + chromaY * planes.bytesPerRow(ofPlane: 2) + chromaX
            let convert = image.order == .bgrx ? ARGBToI420 : ABGRToI420
            _ = convert(
                source.base.assumingMemoryBound(to: UInt8.self), Int32(source.stride),
                y, Int32(planes.bytesPerRow(ofPlane: 0)), u, Int32(planes.bytesPerRow(ofPlane: 1)),
                v, Int32(planes.bytesPerRow(ofPlane: 2)), Int32(content.width), Int32(content.height))
        }
    }

    /// The scratch picture, grown (never shrunk) to `bytes`.
    private func scratch(bytes: Int) -> UnsafeMutableRawPointer {
        if let scratch = self.scratch, self.scratchBytes >= bytes { return scratch }
        self.scratch?.deallocate()
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        self.scratch = scratch
        self.scratchBytes = bytes
        return scratch
    }

    /// Paints black everything of a `size` frame outside `content`.
    private static func paintBars(
        _ planes: PixelPlanes, around content: VideoLetterbox.Rectangle, in size: RemoteDisplayConfiguration.Resolution
    ) {
        let right = content.x + content.width
        let bottom = content.y + content.height
        Self.paintBlack(planes, x: 0, y: 0, width: size.width, height: content.y)
        Self.paintBlack(planes, x: 0, y: bottom, width: size.width, height: size.height - bottom)
        Self.paintBlack(planes, x: 0, y: content.y, width: content.x, height: content.height)
        Self.paintBlack(planes, x: right, y: content.y, width: size.width - right, height: content.height)
    }

    /// Paints a rectangle (even origin) black in limited-range BT.601.
    private static func paintBlack(_ planes: PixelPlanes, x: Int, y: Int, width: Int, height: Int) {
        guard width > 0, height > 0 else { return }
        _ = I420Rect(
            planes.baseAddress(ofPlane: 0), Int32(planes.bytesPerRow(ofPlane: 0)),
            planes.baseAddress(ofPlane: 1), Int32(planes.bytesPerRow(ofPlane: 1)),
            planes.baseAddress(ofPlane: 2), Int32(planes.bytesPerRow(ofPlane: 2)),
            Int32(x), Int32(y), Int32(width), Int32(height), 16, 128, 128)
    }
}
