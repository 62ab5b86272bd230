import NIOConcurrencyHelpers

/// What happened to enqueued audio: how many frames (samples per channel)
/// were queued and how many did not fit and were dropped.
public struct AudioEnqueueResult: Sendable, Hashable {
    /// Frames queued for encoding.
    public var acceptedFrames: Int
    /// Frames dropped because the bounded buffering was full.
    public var droppedFrames: Int

    /// Creates a result.
    public init(acceptedFrames: Int, droppedFrames: Int) {
        self.acceptedFrames = acceptedFrames
        self.droppedFrames = droppedFrames
    }
}

/// The bounded audio buffering between the app and the Opus encoder.
///
/// Audio arrives as ``AudioBuffer``s (from ``makeBuffer()``, taken without
/// copying; any other buffer is copied) or through an ``AudioInput``, and
/// leaves as 10 ms frames for the encoder, interleaved as Opus takes them.
/// The queue's own copies are kept interleaved, so audio from an
/// ``AudioInput`` is copied in and out whole rather than a sample at a
/// time. Memory is fixed: all audio lives in ``bufferCount`` pooled
/// buffers; samples that do not fit are dropped and counted in
/// ``droppedFrameCount`` — the SDK's rule — and never grow memory. Safe
/// from any thread: the app enqueues on its audio thread while the encoder
/// drains on its own.
public final class AudioFrameQueue: Sendable {
    private struct Entry {
        var storage: AudioStorage
        var pts: HostTime
        var readOffset = 0
        /// The queue's own copy, interleaved, which later audio may top up;
        /// otherwise an app's buffer, one plane per channel.
        var isQueueCopy = false
    }

    private struct State {
        var ring: [Entry?]
        var head = 0
        var count = 0
        var queuedFrames = 0
        var droppedFrames = 0
    }

    /// The session's audio format.
    public let format: AudioStreamFormat
    /// Frames each pooled buffer holds.
    public let bufferFrameCapacity: Int
    private let pool: BoundedPool<AudioStorage>
    private let state: NIOLockedValueBox<State>

    /// Creates a queue.
    ///
    /// - Parameters:
    ///   - format: the session's format.
    ///   - bufferFrameCapacity: frames per buffer; default 480 (10 ms).
    ///   - bufferCount: buffers in all; default 50 (500 ms of audio).
    public init(
        format: AudioStreamFormat = .stereo48kHz,
        bufferFrameCapacity: Int = 480,
        bufferCount: Int = 50
    ) throws(CastRemoteDisplayError) {
        guard bufferFrameCapacity > 0, bufferCount > 0 else {
            throw CastRemoteDisplayError(.invalidConfiguration, "audio buffers need a positive size and count")
        }
        self.format = format
        self.bufferFrameCapacity = bufferFrameCapacity
        let channels = format.channelCount
        self.pool = BoundedPool(capacity: bufferCount) {
            AudioStorage(channelCount: channels, frameCapacity: bufferFrameCapacity)
        }
        self.state = NIOLockedValueBox(State(ring: Array(repeating: nil, count: bufferCount)))
    }

    /// How many buffers there are in all.
    public var bufferCount: Int { self.pool.capacity }
    /// Buffers out of the pool now: held by the app or queued.
    public var buffersInUse: Int { self.pool.outstanding }
    /// Frames waiting for the encoder.
    public var queuedFrameCount: Int { self.state.withLockedValue { $0.queuedFrames } }
    /// Frames dropped since the queue was made because the buffering was full.
    public var droppedFrameCount: Int { self.state.withLockedValue { $0.droppedFrames } }

    /// A buffer in the session's format to fill and enqueue, or `nil` when
    /// all are in use (the SDK's `newAudioBuffer`).
    public func makeBuffer() -> AudioBuffer? {
        guard let storage = self.pool.take() else { return nil }
        return AudioBuffer(storage: storage, pool: self.pool)
    }

    /// Enqueues a buffer whose first sample was captured at `pts`.
    ///
    /// A buffer from ``makeBuffer()`` is taken as it is, without copying;
    /// any other buffer is copied into pooled buffers, dropping what does not fit.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` when
    ///   its channel count is not the session's; nothing is queued.
    public func enqueue(_ buffer: consuming AudioBuffer, pts: HostTime) throws(CastRemoteDisplayError)
        -> AudioEnqueueResult
    {
        guard buffer.channelCount == self.format.channelCount else {
            throw CastRemoteDisplayError(
                .audioFormatMismatch,
                "buffer has \(buffer.channelCount) channels; the session has \(self.format.channelCount)"
            )
        }
        let (storage, pool) = buffer.takeStorage()
        if pool === self.pool {
            let frames = storage.frameCount
            self.state.withLockedValue { state in
                state.ring[(state.head + state.count) % state.ring.count] = Entry(storage: storage, pts: pts)
                state.count += 1
                state.queuedFrames += frames
            }
            return AudioEnqueueResult(acceptedFrames: frames, droppedFrames: 0)
        }
        defer {
            storage.frameCount = 0
            pool?.recycle(storage)
        }
        return self.append(frameCount: storage.frameCount, pts: pts) { target, sourceOffset, frames in
            storage.interleavePlanes(from: sourceOffset, count: frames, into: target)
        }
    }

    /// Copies `frameCount` frames into pooled buffers, interleaved, and
    /// queues them. `fill(target, sourceOffset, frames)` writes `frames`
    /// interleaved frames from the source's frame `sourceOffset` on at
    /// `target`. Audio that continues the last queued copy tops it up first,
    /// so buffers fill completely however the input is chunked.
    func append(
        frameCount: Int,
        pts: HostTime,
        fill: (_ target: UnsafeMutablePointer<Float>, _ sourceOffset: Int, _ frames: Int) -> Void
    ) -> AudioEnqueueResult {
        let sampleRate = self.format.sampleRate
        var offset = self.state.withLockedValue { state -> Int in
            guard state.count > 0 else { return 0 }
            let tailIndex = (state.head + state.count - 1) % state.ring.count
            guard let tail = state.ring[tailIndex], tail.isQueueCopy else { return 0 }
            let storage = tail.storage
            let continuation = tail.pts.advanced(byFrames: storage.frameCount, sampleRate: sampleRate)
            guard abs(continuation.nanoseconds - pts.nanoseconds) < 1_000_000_000 / Int64(sampleRate) else { return 0 }
            let frames = min(storage.frameCapacity - storage.frameCount, frameCount)
            fill(storage.interleavedFrame(storage.frameCount), 0, frames)
            storage.frameCount += frames
            state.queuedFrames += frames
            return frames
        }
        while offset < frameCount {
            guard let storage = self.pool.take() else { break }
            let frames = min(storage.frameCapacity, frameCount - offset)
            fill(storage.interleavedFrame(0), offset, frames)
            storage.frameCount = frames
            let entry = Entry(
                storage: storage,
                pts: pts.advanced(byFrames: offset, sampleRate: sampleRate),
                isQueueCopy: true
            )
            self.state.withLockedValue { state in
                state.ring[(state.head + state.count) % state.ring.count] = entry
                state.count += 1
                state.queuedFrames += frames
            }
            offset += frames
        }
        let dropped = frameCount - offset
        if dropped > 0 {
            self.state.withLockedValue { $0.droppedFrames += dropped }
        }
        return AudioEnqueueResult(acceptedFrames: offset, droppedFrames: dropped)
    }

    /// Removes the next `frames` frames, interleaved, into `destination`
    /// (`frames × channelCount` floats) and returns the capture time of the
    /// first; `nil`, removing nothing, while fewer are queued.
    func dequeueInterleaved(frames: Int, into destination: UnsafeMutablePointer<Float>) -> HostTime? {
        let channels = self.format.channelCount
        let sampleRate = self.format.sampleRate
        return self.state.withLockedValue { state -> HostTime? in
            guard state.queuedFrames >= frames, let first = state.ring[state.head] else { return nil }
            let pts = first.pts.advanced(byFrames: first.readOffset, sampleRate: sampleRate)
            var written = 0
            while written < frames, var entry = state.ring[state.head] {
                let available = entry.storage.frameCount - entry.readOffset
                let take = min(available, frames - written)
                let target = destination + written * channels
                if entry.isQueueCopy {
                    target.update(from: entry.storage.interleavedFrame(entry.readOffset), count: take * channels)
                } else {
                    entry.storage.interleavePlanes(from: entry.readOffset, count: take, into: target)
                }
                written += take
                entry.readOffset += take
                if entry.readOffset == entry.storage.frameCount {
                    state.ring[state.head] = nil
                    state.head = (state.head + 1) % state.ring.count
                    state.count -= 1
                    entry.storage.frameCount = 0
                    self.pool.recycle(entry.storage)
                } else {
                    state.ring[state.head] = entry
                }
            }
            state.queuedFrames -= written
            return pts
        }
    }
}
