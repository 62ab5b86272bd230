/// The memory behind one ``PixelBuffer``: one aligned allocation holding
/// every plane, freed when the storage goes away.
//
// @unchecked Sendable: the bytes are mutable, but each storage has exactly
// one owner at a time: a noncopyable `PixelBuffer`, the free list of its
// `BoundedPool` (only while no buffer holds it), or, for the NV12→I420
// conversion copy, the noncopyable `VideoEncoder` that made it and uses it only
// in `mutating` methods. Ownership moves between threads only through the
// pool or a Remote Display session's queue of frames waiting for its encoder
// thread, each under its mutex, which orders the writes before and after.
// Two threads therefore never touch the bytes at once.
package final class PixelStorage: @unchecked Sendable {
    package let layout: PixelLayout
    package let bytes: UnsafeMutableRawPointer

    package init(layout: PixelLayout) {
        self.layout = layout
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: layout.byteCount, alignment: PixelLayout.rowAlignment)
        self.bytes.initializeMemory(as: UInt8.self, repeating: 0, count: layout.byteCount)
    }

    deinit {
        self.bytes.deallocate()
    }

    package func plane(_ index: Int) -> UnsafeMutableRawBufferPointer {
        let rows = self.layout.rows(ofPlane: index)
        return UnsafeMutableRawBufferPointer(
            start: self.bytes + self.layout.offsets[index],
            count: self.layout.bytesPerRow[index] * rows
        )
    }
}
