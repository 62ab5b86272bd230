import CYUV
import CastStreaming

/// The pixel work on the encoder thread, through libyuv: a picture of any
/// stride or 4:2:0 layout made into the I420 libvpx takes, and — for a
/// `VideoLetterbox` — scaled into the content rectangle of a black frame.
enum PictureConversion {
    /// Black in limited-range BT.601, what VP8 encodes.
    static let black: (y: Int32, u: Int32, v: Int32) = (16, 128, 128)

    /// Copies `frame` into `target` (I420, same size): NV12 chroma is
    /// de-interleaved, I420 planes re-strided.
    static func copy(_ frame: borrowing PixelBuffer, toI420 target: PixelStorage) {
        let to = Planes(target)
        let source = frame.storage
        switch frame.format {
        case .i420:
            let from = Planes(source)
            _ = I420Copy(
                from.y, from.yStride, from.u, from.uStride, from.v, from.vStride,
                to.y, to.yStride, to.u, to.uStride, to.v, to.vStride, Int32(frame.width), Int32(frame.height))
        case .nv12:
            _ = NV12ToI420(
                Planes.start(source, 0), Int32(source.layout.bytesPerRow[0]),
                Planes.start(source, 1), Int32(source.layout.bytesPerRow[1]),
                to.y, to.yStride, to.u, to.uStride, to.v, to.vStride, Int32(frame.width), Int32(frame.height))
        }
    }

    /// Paints `target` (I420) black.
    static func fillBlack(_ target: PixelStorage) {
        let planes = Planes(target)
        _ = I420Rect(
            planes.y, planes.yStride, planes.u, planes.uStride, planes.v, planes.vStride, 0, 0,
            Int32(target.layout.width), Int32(target.layout.height), Self.black.y, Self.black.u, Self.black.v)
    }

    /// Scales `source` (I420, any size) into `rectangle` of `target` (I420);
    /// the rest of `target` is left as it is.
    static func scale(_ source: PixelStorage, into target: PixelStorage, at rectangle: VideoLetterbox.Rectangle) {
        let from = Planes(source)
        let to = Planes(target)
        let chromaX = rectangle.x / 2
        let chromaY = rectangle.y / 2
        _ = I420Scale(
            from.y, from.yStride, from.u, from.uStride, from.v, from.vStride,
            Int32(source.layout.width), Int32(source.layout.height),
            to.y + rectangle.y * Int(to.yStride) + rectangle.x, to.yStride,
            to.u + chromaY * Int(to.uStride) + chromaX, to.uStride,
            to.v + chromaY * Int(to.vStride) + chromaX, to.vStride,
            Int32(rectangle.width), Int32(rectangle.height), kFilterBox)
    }

    /// The plane pointers and strides of an I420 storage.
    private struct Planes {
        let y: UnsafeMutablePointer<UInt8>
        let u: UnsafeMutablePointer<UInt8>
        let v: UnsafeMutablePointer<UInt8>
        let yStride: Int32
        let uStride: Int32
        let vStride: Int32

        init(_ storage: PixelStorage) {
            let strides = storage.layout.bytesPerRow
            self.y = Self.start(storage, 0)
            self.u = Self.start(storage, 1)
            self.v = Self.start(storage, 2)
            self.yStride = Int32(strides[0])
            self.uStride = Int32(strides[1])
            self.vStride = Int32(strides[2])
        }

        /// The first byte of `plane` (storage is never empty: every layout is at least 1×1).
        static func start(_ storage: PixelStorage, _ plane: Int) -> UnsafeMutablePointer<UInt8> {
            (storage.bytes + storage.layout.offsets[plane]).assumingMemoryBound(to: UInt8.self)
        }
    }
}
