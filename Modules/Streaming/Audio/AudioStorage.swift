/// The samples behind one ``AudioBuffer``: `channelCount` planes of
/// `frameCapacity` floats, one allocation. The queue's own copies use the
/// same memory interleaved instead (``interleavedFrame(_:)``).
//
// @unchecked Sendable: mutable, but each instance has exactly one owner at a
// time: a noncopyable `AudioBuffer`, one `AudioFrameQueue` entry (the queue
// guards its entries with its own mutex), or a `BoundedPool` free list. It
// moves between threads only under the queue's or the pool's mutex, so two
// threads never touch the samples at once.
final class AudioStorage: @unchecked Sendable {
    let channelCount: Int
    let frameCapacity: Int
    let samples: UnsafeMutablePointer<Float>
    /// Valid frames per channel.
    var frameCount = 0

    init(channelCount: Int, frameCapacity: Int) {
        self.channelCount = channelCount
        self.frameCapacity = frameCapacity
        self.samples = .allocate(capacity: channelCount * frameCapacity)
        self.samples.initialize(repeating: 0, count: channelCount * frameCapacity)
    }

    deinit {
        self.samples.deallocate()
    }

    /// Frame `frame` when the samples are held interleaved.
    func interleavedFrame(_ frame: Int) -> UnsafeMutablePointer<Float> {
        self.samples + frame * self.channelCount
    }

    /// Writes `count` frames from frame `first` of the planes, interleaved, at `target`.
    func interleavePlanes(from first: Int, count: Int, into target: UnsafeMutablePointer<Float>) {
        let channels = self.channelCount
        for channel in 0..<channels {
            let plane = self.samples + channel * self.frameCapacity + first
            for frame in 0..<count { target[frame * channels + channel] = plane[frame] }
        }
    }

    func channel(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: self.samples + index * self.frameCapacity, count: self.frameCapacity)
    }
}
