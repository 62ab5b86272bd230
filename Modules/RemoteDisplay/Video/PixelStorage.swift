/// The memory behind one ``PixelBuffer``: one aligned allocation holding
/// every plane, freed when the storage goes away.
//
// @unchecked Sendable: the bytes are mutable, but storage is only ever
// reachable through one noncopyable `PixelBuffer` (or a pool's free list,
// which holds it only while no buffer does), so two threads can never touch
// the bytes at once. The pool hands it between threads under its mutex.
final class PixelStorage: @unchecked Sendable {
    let layout: PixelLayout
    let bytes: UnsafeMutableRawPointer

    init(layout: PixelLayout) {
        self.layout = layout
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: layout.byteCount, alignment: PixelLayout.rowAlignment)
        self.bytes.initializeMemory(as: UInt8.self, repeating: 0, count: layout.byteCount)
    }

    deinit {
        self.bytes.deallocate()
    }

    func plane(_ index: Int) -> UnsafeMutableRawBufferPointer {
        let rows = self.layout.rows(ofPlane: index)
        return UnsafeMutableRawBufferPointer(
            start: self.bytes + self.layout.offsets[index],
            count: self.layout.bytesPerRow[index] * rows
        )
    }
}
