import CastStreaming

/// The sound a sink node received that its reader has not taken yet:
/// interleaved samples in a ring of fixed size, dated by when the last
/// quantum arrived. When the reader falls behind by the whole ring, the
/// oldest sound is dropped (and counted), so memory stays bounded.
struct SoundRing {
    /// Samples (not frames) the ring holds.
    let capacity: Int
    let channelCount: Int
    let sampleRate: Int
    private var storage: [Float]
    /// Samples ever written, and ever read or dropped.
    private(set) var written = 0
    private(set) var consumed = 0
    /// Samples dropped because the reader fell behind.
    private(set) var dropped = 0
    /// When the last quantum arrived, and the samples it ended and held.
    private var lastArrival: (time: HostTime, end: Int, count: Int)?

    init(seconds: Int, channelCount: Int, sampleRate: Int) {
        self.capacity = max(1, seconds * sampleRate * channelCount)
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.storage = [Float](repeating: 0, count: self.capacity)
    }

    /// Samples written and not read yet.
    var available: Int { self.written - self.consumed }

    /// Appends a quantum that arrived at `time`; its first sample is taken
    /// to be heard at `time`, the others one frame apart after it.
    mutating func write(_ samples: UnsafeBufferPointer<Float>, at time: HostTime) {
        // A quantum longer than the ring keeps its end.
        self.written += samples.count - min(samples.count, self.capacity)
        for sample in samples.suffix(self.capacity) {
            self.storage[self.written % self.capacity] = sample
            self.written += 1
        }
        if self.available > self.capacity {
            self.dropped += self.available - self.capacity
            self.consumed = self.written - self.capacity
        }
        self.lastArrival = (time, self.written, samples.count)
    }

    /// The host time of the sample numbered `index` (counted over every
    /// write), from the last quantum's arrival; `nil` before any.
    func time(ofSample index: Int) -> HostTime? {
        guard let last = self.lastArrival else { return nil }
        let frames = (index - (last.end - last.count)) / self.channelCount
        return last.time.advanced(byFrames: frames, sampleRate: self.sampleRate)
    }

    /// Moves up to `target.count` samples into `target` (the rest of it
    /// left as it is); returns how many and the time of the first, `nil`
    /// when none was there.
    mutating func read(into target: UnsafeMutableBufferPointer<Float>) -> (count: Int, time: HostTime)? {
        let count = min(target.count, self.available)
        guard count > 0, let time = self.time(ofSample: self.consumed) else { return nil }
        for offset in 0..<count { target[offset] = self.storage[(self.consumed + offset) % self.capacity] }
        self.consumed += count
        return (count, time)
    }

    /// Forgets what was not read.
    mutating func clear() { self.consumed = self.written }
}
