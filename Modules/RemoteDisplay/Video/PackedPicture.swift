public import CastStreaming

/// How the pixels of a ``PackedPicture`` lie in memory: the byte order of
/// one pixel, first byte first (not the order within a 32-bit word).
///
/// | Format | Bytes | Typical source | libyuv's name |
/// |---|---|---|---|
/// | ``bgra`` | B G R A | Cairo `ARGB32` and X11 on little-endian machines, Vulkan `B8G8R8A8` | ARGB |
/// | ``rgba`` | R G B A | OpenGL `glReadPixels(GL_RGBA)`, Vulkan `R8G8B8A8`, most image libraries | ABGR |
/// | ``argb`` | A R G B | Java, some game engines | BGRA |
/// | ``rgb24`` | R G B | `GL_RGB`, PPM files | RAW |
/// | ``bgr24`` | B G R | Windows DIBs, OpenCV | RGB24 |
///
/// Alpha is ignored, not blended: a receiver shows opaque video.
public enum PackedPixelFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Blue, green, red, alpha (or unused).
    case bgra
    /// Red, green, blue, alpha (or unused).
    case rgba
    /// Alpha (or unused), red, green, blue.
    case argb
    /// Red, green, blue: three bytes a pixel.
    case rgb24
    /// Blue, green, red: three bytes a pixel.
    case bgr24

    /// Bytes a pixel takes: 4, or 3 for ``rgb24`` and ``bgr24``.
    public var bytesPerPixel: Int {
        switch self {
        case .bgra, .rgba, .argb: 4
        case .rgb24, .bgr24: 3
        }
    }

    public var description: String {
        switch self {
        case .bgra: "BGRA"
        case .rgba: "RGBA"
        case .argb: "ARGB"
        case .rgb24: "RGB24"
        case .bgr24: "BGR24"
        }
    }
}

/// A picture an app rendered, in the app's own memory: packed RGB pixels
/// of any size and row stride, for ``PackedPictureConverter`` to put into a
/// session's `PixelBuffer`.
///
/// The picture only borrows `bytes`: it must stay valid, and unchanged,
/// until the conversion it is given to returns.
///
/// ```swift
/// let picture = try PackedPicture(bytes: pixels, width: 1280, height: 720, format: .rgba)
/// try converter.convert(picture, into: &frame)
/// ```
public struct PackedPicture {
    /// The pixels, top row first.
    public let bytes: UnsafeRawBufferPointer
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Bytes from the start of one row to the next.
    public let bytesPerRow: Int
    /// The byte order of each pixel.
    public let format: PackedPixelFormat
    /// The first pixel (`bytes` is never empty).
    let base: UnsafePointer<UInt8>

    /// Describes a picture at `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: at least `bytesPerRow × (height − 1) + width × bytesPerPixel` bytes.
    ///   - width: pixels per row, at least 1.
    ///   - height: rows, at least 1.
    ///   - bytesPerRow: the stride; `nil` means rows follow each other with no gap.
    ///   - format: the byte order of each pixel.
    /// - Throws: `CastRemoteDisplayError.Code.frameFormatMismatch`
    ///   for an empty size, a stride shorter than a row, or too few bytes.
    public init(
        bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil, format: PackedPixelFormat
    ) throws(CastRemoteDisplayError) {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max) / 4 else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch, "a \(format) picture of \(width)×\(height) is empty or too large")
        }
        let rowBytes = width * format.bytesPerPixel
        let stride = bytesPerRow ?? rowBytes
        guard stride >= rowBytes, stride <= Int(Int32.max) else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch,
                "a \(format) row of \(width) pixels needs \(rowBytes) bytes; the stride is \(stride)")
        }
        let (span, overflow) = stride.multipliedReportingOverflow(by: height - 1)
        guard !overflow, let base = bytes.baseAddress, bytes.count >= span + rowBytes else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch,
                "a \(width)×\(height) \(format) picture at stride \(stride) needs \(span + rowBytes) bytes; got \(bytes.count)"
            )
        }
        self.bytes = bytes
        self.width = width
        self.height = height
        self.bytesPerRow = stride
        self.format = format
        self.base = base.assumingMemoryBound(to: UInt8.self)
    }
}
