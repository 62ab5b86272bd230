/// One encoded video or audio frame, ready for encryption and packetizing.
///
/// Its bytes live in pooled storage that returns to the pool when the frame
/// is dropped — typically once the receiver acknowledged it. Frames are
/// noncopyable so exactly one owner (the sender's retransmission window)
/// holds each one.
public struct EncodedFrame: ~Copyable, Sendable {
    let storage: EncodedBytes
    private let pool: BoundedPool<EncodedBytes>

    /// Whether the frame decodes on its own (VP8 key frame; every Opus frame).
    public let isKeyFrame: Bool
    /// Capture time of the frame's first sample or its picture.
    public let pts: HostTime
    /// How long the frame plays.
    public let duration: Duration

    init(storage: EncodedBytes, pool: BoundedPool<EncodedBytes>, isKeyFrame: Bool, pts: HostTime, duration: Duration) {
        self.storage = storage
        self.pool = pool
        self.isKeyFrame = isKeyFrame
        self.pts = pts
        self.duration = duration
    }

    deinit {
        self.pool.recycle(self.storage)
    }

    /// The encoded size in bytes.
    public var byteCount: Int { self.storage.count }

    /// Gives `body` the encoded bytes.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: self.storage.bytes, count: self.storage.count))
    }

    /// A copy of the encoded bytes (allocates; for tests and tools, not the media path).
    public var bytes: [UInt8] {
        self.withUnsafeBytes { Array($0) }
    }
}

/// Storage for encoded frames, bounded by the most frames that can be in
/// flight (120 unacknowledged, Docs/spec/cast-streaming.md §5) plus a few.
package final class EncodedFramePool: Sendable {
    private let pool: BoundedPool<EncodedBytes>

    /// A pool whose frames start with room for `initialBytes`; with
    /// `prefilled`, all of them are made now (``BoundedPool``).
    package init(
        capacity: Int = RemoteDisplayLimits.encodedFramePoolCapacity, initialBytes: Int, prefilled: Bool = false
    ) {
        self.pool = BoundedPool(capacity: capacity, prefilled: prefilled) { EncodedBytes(capacity: initialBytes) }
    }

    /// A frame holding a copy of `bytes`, or a ``CastRemoteDisplayError/Code-swift.struct/poolExhausted`` error.
    package func makeFrame(
        copying bytes: UnsafeRawBufferPointer,
        isKeyFrame: Bool,
        pts: HostTime,
        duration: Duration
    ) throws(CastRemoteDisplayError) -> EncodedFrame {
        guard let storage = self.pool.take() else {
            throw CastRemoteDisplayError(
                .poolExhausted,
                "all \(self.pool.capacity) encoded frames are still held; drop acknowledged frames first"
            )
        }
        storage.assign(bytes)
        return EncodedFrame(storage: storage, pool: self.pool, isKeyFrame: isKeyFrame, pts: pts, duration: duration)
    }
}
