import CYUV
public import CastStreaming

/// Puts an app's rendered pictures (``PackedPicture``: RGBA, BGRA, ARGB,
/// RGB24, BGR24, any stride) into a session's I420 frames with libyuv,
/// Chromium's own pixel library: converted straight into the frame, scaled
/// to the frame's size with the aspect ratio kept (black bars around a
/// picture of another shape).
///
/// Keep one converter per thread that draws and reuse it: a picture at the
/// frame's size is converted with no copy and no allocation; scaling uses
/// scratch memory the converter keeps and grows only when pictures grow.
///
/// ```swift
/// var converter = PackedPictureConverter()
/// guard var frame = pool.makeBuffer() else { return }
/// try pixels.withUnsafeBytes { bytes in
///     try converter.convert(
///         PackedPicture(bytes: bytes, width: 1280, height: 720, format: .bgra), into: &frame)
/// }
/// try session.enqueueVideoFrame(frame)
/// ```
public struct PackedPictureConverter: ~Copyable, Sendable {
    /// The picture scaled to the content rectangle, 4 bytes a pixel.
    private var scaled = ScratchMemory()
    /// A 3-byte picture widened to 4 bytes a pixel before it is scaled.
    private var widened = ScratchMemory()

    /// Creates a converter; it allocates nothing until a picture needs scaling.
    public init() {}

    /// Converts `picture` into `frame`, scaled into the frame with its
    /// aspect ratio kept; every pixel of `frame` is written.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.frameFormatMismatch`
    ///   when `frame` is not `PixelFormat.i420`.
    public mutating func convert(_ picture: PackedPicture, into frame: inout PixelBuffer) throws(CastRemoteDisplayError)
    {
        guard frame.format == .i420 else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch, "packed pictures are converted into I420 frames, not \(frame.format)")
        }
        let size = RemoteDisplayConfiguration.Resolution(width: frame.width, height: frame.height)
        let content =
            picture.width == size.width && picture.height == size.height
            ? VideoLetterbox.Rectangle(x: 0, y: 0, width: size.width, height: size.height)
            : VideoLetterbox.content(
                fitting: RemoteDisplayConfiguration.Resolution(width: picture.width, height: picture.height), in: size)
        // What goes into the content rectangle: the picture itself when it
        // fits exactly, else a 4-byte copy scaled to the rectangle.
        var source = Source(base: picture.base, stride: picture.bytesPerRow, format: picture.format)
        if content.width != picture.width || content.height != picture.height {
            source = self.scale(picture, to: content)
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
            let convert: ToI420
            switch source.format {
            case .bgra: convert = ARGBToI420
            case .rgba: convert = ABGRToI420
            case .argb: convert = BGRAToI420
            case .rgb24: convert = RAWToI420
            case .bgr24: convert = RGB24ToI420
            }
            _ = convert(
                source.base, Int32(source.stride), y, Int32(planes.bytesPerRow(ofPlane: 0)),
                u, Int32(planes.bytesPerRow(ofPlane: 1)), v, Int32(planes.bytesPerRow(ofPlane: 2)),
                Int32(content.width), Int32(content.height))
        }
    }

    /// Converts `pixels`, a `width`×`height` picture of `format` with no gap between rows.
    mutating func convert(
        tightPixels pixels: [UInt8], width: Int, height: Int, format: PackedPixelFormat, into frame: inout PixelBuffer
    ) throws(CastRemoteDisplayError) {
        try pixels.withUnsafeBytes { bytes in
            Result { () throws(CastRemoteDisplayError) in
                try self.convert(
                    PackedPicture(bytes: bytes, width: width, height: height, format: format), into: &frame)
            }
        }.get()
    }

    /// libyuv's `…ToI420` signature.
    private typealias ToI420 = (
        UnsafePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32,
        UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32
    ) -> Int32

    /// Pixels to convert: where they start, their stride, their byte order.
    private struct Source {
        let base: UnsafePointer<UInt8>
        let stride: Int
        let format: PackedPixelFormat
    }

    /// `picture` scaled (bilinear) to `content`'s size in scratch memory,
    /// 4 bytes a pixel; a 3-byte picture is first widened to BGRA.
    private mutating func scale(_ picture: PackedPicture, to content: VideoLetterbox.Rectangle) -> Source {
        var from = picture.base
        var fromStride = picture.bytesPerRow
        var format = picture.format
        if picture.format.bytesPerPixel == 3 {
            let widened = self.widened.bytes(picture.width * picture.height * 4)
            let widen = picture.format == .rgb24 ? RAWToARGB : RGB24ToARGB
            _ = widen(
                from, Int32(picture.bytesPerRow), widened, Int32(picture.width * 4), Int32(picture.width),
                Int32(picture.height))
            from = UnsafePointer(widened)
            fromStride = picture.width * 4
            format = .bgra
        }
        let scaled = self.scaled.bytes(content.width * content.height * 4)
        // ARGBScale moves 4-byte pixels whatever their channel order.
        _ = ARGBScale(
            from, Int32(fromStride), Int32(picture.width), Int32(picture.height),
            scaled, Int32(content.width * 4), Int32(content.width), Int32(content.height), kFilterBilinear)
        return Source(base: UnsafePointer(scaled), stride: content.width * 4, format: format)
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
        let black = PictureConversion.black
        _ = I420Rect(
            planes.baseAddress(ofPlane: 0), Int32(planes.bytesPerRow(ofPlane: 0)),
            planes.baseAddress(ofPlane: 1), Int32(planes.bytesPerRow(ofPlane: 1)),
            planes.baseAddress(ofPlane: 2), Int32(planes.bytesPerRow(ofPlane: 2)),
            Int32(x), Int32(y), Int32(width), Int32(height), black.y, black.u, black.v)
    }
}

/// Memory a converter keeps between pictures, grown (never shrunk) to the
/// largest asked for.
//
// @unchecked Sendable: the memory has one owner, the noncopyable converter
// holding it, and is touched only in that converter's `mutating` methods,
// which Swift's exclusivity rules keep to one thread at a time.
struct ScratchMemory: ~Copyable, @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>?
    private var count = 0

    init() {}

    deinit {
        self.base?.deallocate()
    }

    /// At least `count` bytes, valid until the next call.
    mutating func bytes(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if let base = self.base, self.count >= count { return base }
        self.base?.deallocate()
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        self.base = base
        self.count = count
        return base
    }
}
