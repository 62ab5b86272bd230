/// Growable byte storage for one encoded frame, reused through a pool.
///
/// It grows (by reallocation) only when a frame is bigger than any before
/// it, so in steady state encoding allocates nothing.
//
// @unchecked Sendable: mutable, but each instance has exactly one owner at a
// time: a noncopyable `EncodedFrame`, or the free list of its `BoundedPool`
// while no frame holds it. It moves between threads only through the pool,
// under its mutex, so two threads never touch the bytes at once.
final class EncodedBytes: @unchecked Sendable {
    private(set) var bytes: UnsafeMutableRawPointer
    private(set) var capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit {
        self.bytes.deallocate()
    }

    /// Makes room for at least `byteCount` bytes; the contents are not kept.
    func reserve(_ byteCount: Int) {
        guard byteCount > self.capacity else { return }
        self.bytes.deallocate()
        self.capacity = max(byteCount, self.capacity * 2)
        self.bytes = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    /// Replaces the contents with `source`.
    func assign(_ source: UnsafeRawBufferPointer) {
        self.reserve(source.count)
        if let base = source.baseAddress {
            self.bytes.copyMemory(from: base, byteCount: source.count)
        }
        self.count = source.count
    }
}
