/// Audio in the session's format — deinterleaved float — owned by one holder at a time.
///
/// The SDK's `GCKRemoteDisplayAudioBuffer`. Get one from
/// ``AudioFrameQueue/makeBuffer()`` (the SDK's `newAudioBuffer`), fill it and
/// enqueue it: the queue takes its storage without copying. A buffer that is
/// dropped instead goes back to its pool; if buffers are taken and never
/// enqueued or dropped, the pool runs dry and no audio is sent.
public struct AudioBuffer: ~Copyable, Sendable {
    let storage: AudioStorage
    private var pool: BoundedPool<AudioStorage>?

    init(storage: AudioStorage, pool: BoundedPool<AudioStorage>?) {
        self.storage = storage
        self.pool = pool
    }

    /// Creates a silent buffer of its own (not pooled); enqueueing it copies.
    public init(channelCount: Int, frameCapacity: Int) {
        self.init(
            storage: AudioStorage(channelCount: max(channelCount, 1), frameCapacity: max(frameCapacity, 1)),
            pool: nil
        )
    }

    deinit {
        if let pool = self.pool {
            self.storage.frameCount = 0
            pool.recycle(self.storage)
        }
    }

    /// Channels (planes).
    public var channelCount: Int { self.storage.channelCount }
    /// The most frames (samples per channel) the buffer holds.
    public var frameCapacity: Int { self.storage.frameCapacity }

    /// How many frames are valid, 0…``frameCapacity`` (values outside are clamped).
    public var frameCount: Int {
        get { self.storage.frameCount }
        set { self.storage.frameCount = min(max(newValue, 0), self.storage.frameCapacity) }
    }

    /// Gives `body` one channel's samples, ``frameCapacity`` long, to write.
    /// Set ``frameCount`` to the number written.
    public mutating func withUnsafeMutableSamples<Result, Failure: Error>(
        ofChannel channel: Int,
        _ body: (UnsafeMutableBufferPointer<Float>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(self.storage.channel(channel))
    }

    /// Gives `body` one channel's valid samples to read.
    public func withUnsafeSamples<Result, Failure: Error>(
        ofChannel channel: Int,
        _ body: (UnsafeBufferPointer<Float>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(rebasing: self.storage.channel(channel)[..<self.storage.frameCount]))
    }

    /// Replaces the contents with `channels` (one array per channel, equal lengths)
    /// and sets ``frameCount``.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` when the
    ///   channel count differs or the arrays are longer than ``frameCapacity``.
    public mutating func setSamples(_ channels: [[Float]]) throws(CastRemoteDisplayError) {
        let frames = channels.first?.count ?? 0
        guard channels.count == self.channelCount, channels.allSatisfy({ $0.count == frames }),
            frames <= self.frameCapacity
        else {
            throw CastRemoteDisplayError(
                .audioFormatMismatch,
                "expected \(self.channelCount) channels of at most \(self.frameCapacity) frames each"
            )
        }
        for (index, samples) in channels.enumerated() {
            _ = self.storage.channel(index).update(fromContentsOf: samples)
        }
        self.storage.frameCount = frames
    }

    /// Hands the storage over without returning it to the pool; `nil` pool means it was not pooled.
    consuming func takeStorage() -> (AudioStorage, BoundedPool<AudioStorage>?) {
        let pool = self.pool
        self.pool = nil
        return (self.storage, pool)
    }
}
