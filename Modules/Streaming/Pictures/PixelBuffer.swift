/// One video frame's pixels, owned by exactly one holder at a time.
///
/// The SDK's `CVPixelBuffer` for Remote Display. Get encoder-ready buffers
/// from a ``PixelBufferPool`` (the SDK's `createPixelBuffer`), or make your
/// own with any row stride. A buffer is noncopyable: enqueueing it hands it
/// over, so the app cannot draw into a frame the encoder is reading. A pooled
/// buffer returns to its pool when its last owner is done with it — after
/// encoding, or when the app drops it.
///
/// ```swift
/// guard var frame = pool.makeBuffer() else { return }  // pool exhausted: skip this frame
/// frame.withUnsafeMutableBytes(ofPlane: 0) { luma in render(into: luma) }
/// ```
public struct PixelBuffer: ~Copyable, Sendable {
    package let storage: PixelStorage
    private var pool: BoundedPool<PixelStorage>?

    package init(storage: PixelStorage, pool: BoundedPool<PixelStorage>?) {
        self.storage = storage
        self.pool = pool
    }

    /// Creates a black buffer of its own (not pooled).
    ///
    /// - Parameters:
    ///   - format: ``PixelFormat/i420`` or ``PixelFormat/nv12``.
    ///   - width: pixels per row, 1…4096.
    ///   - height: rows, 1…4096.
    ///   - bytesPerRow: the stride of each plane, at least its row's bytes;
    ///     `nil` picks aligned strides.
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration``
    ///   for a size out of range, ``CastRemoteDisplayError/Code-swift.struct/frameFormatMismatch``
    ///   for strides that do not fit.
    public init(format: PixelFormat, width: Int, height: Int, bytesPerRow: [Int]? = nil) throws(CastRemoteDisplayError)
    {
        let layout = try PixelLayout(format: format, width: width, height: height, bytesPerRow: bytesPerRow)
        self.init(storage: PixelStorage(layout: layout), pool: nil)
        // Black: Y = 0 is below video black, so fill luma 16 and chroma 128.
        self.fillBlack()
    }

    deinit {
        self.pool?.recycle(self.storage)
    }

    /// The pixel layout.
    public var format: PixelFormat { self.storage.layout.format }
    /// Pixels per row.
    public var width: Int { self.storage.layout.width }
    /// Rows.
    public var height: Int { self.storage.layout.height }
    /// How many planes the buffer has (3 for I420, 2 for NV12).
    public var planeCount: Int { self.format.planeCount }

    /// The stride of `plane`: bytes from the start of one row to the next.
    public func bytesPerRow(ofPlane plane: Int) -> Int { self.storage.layout.bytesPerRow[plane] }

    /// The number of rows of `plane` (half the height, rounded up, for chroma).
    public func rows(ofPlane plane: Int) -> Int { self.storage.layout.rows(ofPlane: plane) }

    /// Gives `body` the bytes of one plane, `rows(ofPlane:) × bytesPerRow(ofPlane:)` long, to write.
    public mutating func withUnsafeMutableBytes<Result, Failure: Error>(
        ofPlane plane: Int,
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(self.storage.plane(plane))
    }

    /// Gives `body` the bytes of one plane to read.
    public func withUnsafeBytes<Result, Failure: Error>(
        ofPlane plane: Int,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(self.storage.plane(plane)))
    }

    /// Gives `body` every plane at once to write, for converters that fill
    /// all planes in one call (libyuv's `ARGBToI420`, for one).
    public mutating func withUnsafeMutablePlanes<Result, Failure: Error>(
        _ body: (PixelPlanes) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(PixelPlanes(storage: self.storage))
    }

    /// Copies one plane from `source`, whose rows are `bytesPerRow` apart.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/frameFormatMismatch``
    ///   when `source` is too short for the plane or its stride is shorter than a row.
    public mutating func copyPlane(
        _ plane: Int,
        from source: [UInt8],
        bytesPerRow sourceStride: Int
    ) throws(CastRemoteDisplayError) {
        try source.withUnsafeBytes { source in
            Result { () throws(CastRemoteDisplayError) in
                try self.copyPlane(plane, from: source, bytesPerRow: sourceStride)
            }
        }.get()
    }

    /// Copies one plane from the bytes at `source`, whose rows are
    /// `bytesPerRow` apart — from a file's buffer, without an array.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/frameFormatMismatch``
    ///   when `source` is too short for the plane or its stride is shorter than a row.
    public mutating func copyPlane(
        _ plane: Int,
        from source: UnsafeRawBufferPointer,
        bytesPerRow sourceStride: Int
    ) throws(CastRemoteDisplayError) {
        let layout = self.storage.layout
        guard plane >= 0, plane < layout.format.planeCount else {
            throw CastRemoteDisplayError(.frameFormatMismatch, "\(layout.format) has no plane \(plane)")
        }
        let rowBytes = layout.rowBytes(ofPlane: plane)
        let rows = layout.rows(ofPlane: plane)
        guard sourceStride >= rowBytes, source.count >= sourceStride * (rows - 1) + rowBytes else {
            throw CastRemoteDisplayError(
                .frameFormatMismatch,
                "plane \(plane) needs \(rows) rows of \(rowBytes) bytes; got \(source.count) bytes at stride \(sourceStride)"
            )
        }
        let destination = self.storage.plane(plane)
        let destinationStride = layout.bytesPerRow[plane]
        for row in 0..<rows {
            let from = UnsafeRawBufferPointer(rebasing: source[(row * sourceStride)..<(row * sourceStride + rowBytes)])
            UnsafeMutableRawBufferPointer(rebasing: destination[(row * destinationStride)...]).copyMemory(from: from)
        }
    }

    /// Hands the storage over without returning it to the pool (the session
    /// moves a frame to its encoder thread this way); `nil` pool means it was not pooled.
    consuming func takeStorage() -> (PixelStorage, BoundedPool<PixelStorage>?) {
        let pool = self.pool
        self.pool = nil
        return (self.storage, pool)
    }

    /// Paints every plane black (limited-range BT.601: luma 16, chroma 128).
    package mutating func paintBlack() {
        self.fillBlack()
    }

    private mutating func fillBlack() {
        for plane in 0..<self.planeCount {
            self.storage.plane(plane).initializeMemory(as: UInt8.self, repeating: plane == 0 ? 16 : 128)
        }
    }
}

/// The planes of a ``PixelBuffer`` being written, all at once; valid only
/// inside ``PixelBuffer/withUnsafeMutablePlanes(_:)``.
public struct PixelPlanes {
    fileprivate let storage: PixelStorage

    /// How many planes there are (3 for I420, 2 for NV12).
    public var count: Int { self.storage.layout.format.planeCount }

    /// The first byte of `plane`, whose rows are ``bytesPerRow(ofPlane:)`` apart.
    public func baseAddress(ofPlane plane: Int) -> UnsafeMutablePointer<UInt8> {
        (self.storage.bytes + self.storage.layout.offsets[plane]).assumingMemoryBound(to: UInt8.self)
    }

    /// The stride of `plane`: bytes from the start of one row to the next.
    public func bytesPerRow(ofPlane plane: Int) -> Int { self.storage.layout.bytesPerRow[plane] }
}
