/// The pixel layouts a Remote Display session accepts: the SDK's two
/// 4:2:0 formats.
public enum PixelFormat: Sendable, Hashable, CustomStringConvertible {
    /// Planar Y, U, V (the SDK's `'y420'`): three planes, chroma at half
    /// width and half height. What the encoder consumes directly.
    case i420
    /// Bi-planar Y then interleaved UV (the SDK's `'420v'`): two planes,
    /// chroma pairs at half width and half height.
    case nv12

    /// How many planes a buffer of this format has.
    public var planeCount: Int {
        switch self {
        case .i420: 3
        case .nv12: 2
        }
    }

    public var description: String {
        switch self {
        case .i420: "I420"
        case .nv12: "NV12"
        }
    }
}

/// Where each plane of a pixel buffer lives in its storage.
package struct PixelLayout: Sendable, Hashable {
    package let format: PixelFormat
    package let width: Int
    package let height: Int
    /// Bytes from one row to the next, per plane.
    package let bytesPerRow: [Int]
    /// Offset of each plane from the start of the storage.
    package let offsets: [Int]
    package let byteCount: Int

    /// Row alignment of buffers the SDK allocates: what SIMD loads like.
    package static let rowAlignment = 32

    /// The bytes of real picture in one row of `plane`.
    package func rowBytes(ofPlane plane: Int) -> Int {
        Self.rowBytes(format: self.format, width: self.width, plane: plane)
    }

    private static func rowBytes(format: PixelFormat, width: Int, plane: Int) -> Int {
        let chromaWidth = (width + 1) / 2
        switch (format, plane) {
        case (_, 0): return width
        case (.i420, _): return chromaWidth
        case (.nv12, _): return 2 * chromaWidth
        }
    }

    /// The number of rows of `plane`.
    package func rows(ofPlane plane: Int) -> Int {
        plane == 0 ? self.height : (self.height + 1) / 2
    }

    /// A layout with the given row strides, or aligned ones when `bytesPerRow` is nil.
    package init(format: PixelFormat, width: Int, height: Int, bytesPerRow: [Int]? = nil) throws(CastRemoteDisplayError)
    {
        guard width > 0, height > 0, width <= RemoteDisplayLimits.maximumDimension,
            height <= RemoteDisplayLimits.maximumDimension
        else {
            throw CastRemoteDisplayError(
                .invalidConfiguration,
                "frame size \(width)×\(height) is outside 1…\(RemoteDisplayLimits.maximumDimension) per side"
            )
        }
        self.format = format
        self.width = width
        self.height = height
        var strides: [Int] = []
        var offsets: [Int] = []
        var offset = 0
        for plane in 0..<format.planeCount {
            let minimum = Self.rowBytes(format: format, width: width, plane: plane)
            let stride: Int
            if let bytesPerRow {
                guard bytesPerRow.count == format.planeCount, bytesPerRow[plane] >= minimum else {
                    throw CastRemoteDisplayError(
                        .frameFormatMismatch,
                        "\(format) plane \(plane) needs \(format.planeCount) strides of at least \(minimum) bytes, got \(bytesPerRow)"
                    )
                }
                stride = bytesPerRow[plane]
            } else {
                stride = (minimum + Self.rowAlignment - 1) / Self.rowAlignment * Self.rowAlignment
            }
            strides.append(stride)
            offsets.append(offset)
            offset += stride * (plane == 0 ? height : (height + 1) / 2)
        }
        self.bytesPerRow = strides
        self.offsets = offsets
        self.byteCount = offset
    }
}
