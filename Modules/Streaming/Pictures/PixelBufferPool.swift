/// A bounded supply of encoder-ready pixel buffers of one size.
///
/// The SDK's `createPixelBuffer`: ``makeBuffer()`` returns a buffer or `nil`
/// when all are in use — the pool never grows past ``capacity``. Buffers are
/// I420 with aligned rows, the layout the VP8 encoder reads without
/// conversion, and come back automatically once encoded or dropped.
public final class PixelBufferPool: Sendable {
    private let pool: BoundedPool<PixelStorage>
    private let layout: PixelLayout

    /// Creates a pool.
    ///
    /// - Parameters:
    ///   - width: frame width in pixels.
    ///   - height: frame height in pixels.
    ///   - capacity: the most buffers out at once (default 4: one being drawn,
    ///     one queued, one encoding, one spare).
    public init(width: Int, height: Int, capacity: Int = 4) throws(CastRemoteDisplayError) {
        guard capacity > 0 else {
            throw CastRemoteDisplayError(.invalidConfiguration, "pixel buffer pool capacity must be positive")
        }
        let layout = try PixelLayout(format: .i420, width: width, height: height)
        self.layout = layout
        self.pool = BoundedPool(capacity: capacity) { PixelStorage(layout: layout) }
    }

    /// The most buffers out at once.
    public var capacity: Int { self.pool.capacity }
    /// How many buffers are out now.
    public var buffersInUse: Int { self.pool.outstanding }
    /// Width of the buffers.
    public var width: Int { self.layout.width }
    /// Height of the buffers.
    public var height: Int { self.layout.height }

    /// A buffer to draw the next frame into, or `nil` if all are in use.
    ///
    /// The buffer holds whatever the previous frame left in it.
    public func makeBuffer() -> PixelBuffer? {
        guard let storage = self.pool.take() else { return nil }
        return PixelBuffer(storage: storage, pool: self.pool)
    }
}
