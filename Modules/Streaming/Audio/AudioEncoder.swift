/// Drains an ``AudioFrameQueue`` through an ``OpusEncoder``, 10 ms at a time.
///
/// The encode side of a session's audio: the app (directly or through an
/// ``AudioInput``) fills the queue; the session's media thread calls
/// ``encodeNextFrame()`` until it returns `nil`.
public struct AudioEncoder: ~Copyable, Sendable {
    /// The queue this encoder drains.
    public let queue: AudioFrameQueue
    private var opus: OpusEncoder

    /// Creates an encoder for `queue`'s format.
    public init(queue: AudioFrameQueue, bitrate: Int = 128_000) throws(CastRemoteDisplayError) {
        let opus = try OpusEncoder(channelCount: queue.format.channelCount, bitrate: bitrate)
        self.queue = queue
        self.opus = opus
    }

    /// Target bitrate, bits per second.
    public var bitrate: Int { self.opus.bitrate }

    /// Changes the bitrate from the next frame on.
    public mutating func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        try self.opus.setBitrate(bitsPerSecond)
    }

    /// Encodes the next 10 ms of queued audio, or returns `nil` while less is queued.
    public mutating func encodeNextFrame() throws(CastRemoteDisplayError) -> EncodedFrame? {
        let queue = self.queue
        return try self.opus.encode { input in
            queue.dequeueInterleaved(frames: OpusEncoder.frameSamples, into: input)
        }
    }
}
