package import CastStreaming

/// Sound from several recordings, added together by when it was captured:
/// what a sink does with the streams playing into it, done again for the
/// streams of one application, each recorded on its own.
///
/// Each source's sound is placed on one timeline of frames. A source's
/// next chunk follows its last one without a gap (the streams of a sink
/// run on the sink's clock, and the moment a chunk reaches us jitters);
/// only when everything it gave has been mixed and its chunk is stamped
/// more than ``resync`` away from where it would follow — a stream that
/// paused, or a clock that drifted — is it placed by its stamp again.
///
/// Sound is handed out once every source still playing has given it; a
/// source that gave nothing for ``hold`` (a paused stream gives nothing)
/// is not waited for: it is silent in the mix until it plays again. A stretch no
/// source gave sound for is skipped, not filled with silence. At most
/// ``limit`` frames are kept unmixed: older sound is dropped.
package struct SoundMix {
    /// A recorded stream's place on the timeline.
    private struct Source {
        /// The frame its first kept sample is at.
        var start: Int
        var samples: [Float] = []
        /// No more sound will come from it.
        var ended = false
        /// When its newest sound was captured, to its end: how long ago it last gave any.
        var heard: HostTime
    }

    package let channels: Int
    package let sampleRate: Int
    /// How long a source may give nothing before it counts as silent.
    package let hold: Duration
    /// How far from its continuation a source's sound must be stamped to be placed by its stamp, in frames.
    package let resync: Int
    /// The most frames kept unmixed.
    package let limit: Int
    /// The capture time of frame 0: the first sound's.
    private var origin: HostTime?
    /// The next frame handed out.
    private var position = 0
    private var sources: [UInt32: Source] = [:]

    package init(channels: Int, sampleRate: Int, hold: Duration, resync: Duration, limit: Duration) {
        self.channels = channels
        self.sampleRate = sampleRate
        let frames = { (duration: Duration) in Int(duration / .seconds(1) * Double(sampleRate)) }
        (self.hold, self.resync, self.limit) = (hold, frames(resync), frames(limit))
    }

    /// The sources whose sound may still come.
    package var playing: Int { self.sources.values.count { !$0.ended } }

    /// Adds `samples` (interleaved) from source `id`, the first captured at `time`.
    package mutating func add(_ samples: UnsafeBufferPointer<Float>, from id: UInt32, capturedAt time: HostTime) {
        let origin = self.origin ?? time
        self.origin = origin
        let stamped = Int(origin.duration(to: time) / .seconds(1) * Double(self.sampleRate))
        let frames = samples.count / self.channels
        var source = self.sources[id] ?? Source(start: stamped, heard: time)
        let follows = source.start + source.samples.count / self.channels
        if source.samples.isEmpty, abs(stamped - follows) > self.resync { source.start = stamped }
        source.ended = false
        source.heard = time.advanced(byFrames: frames, sampleRate: self.sampleRate)
        source.samples.append(contentsOf: samples.prefix(samples.count - samples.count % self.channels))
        self.sources[id] = source
        self.dropBefore(self.position)
        let newest = self.sources.values.map { $0.start + $0.samples.count / self.channels }.max() ?? self.position
        if newest - self.position > self.limit { self.dropBefore(newest - self.limit) }
    }

    /// Source `id` gives no more sound; what it gave is still mixed.
    package mutating func end(_ id: UInt32) {
        self.sources[id]?.ended = true
        if self.sources[id]?.samples.isEmpty == true { self.sources[id] = nil }
    }

    /// Mixes the next `output.count / channels` frames into `output` and
    /// returns the capture time of the first; `nil` (and `output`
    /// untouched) while they are not all there yet at `now`.
    package mutating func take(into output: UnsafeMutableBufferPointer<Float>, now: HostTime) -> HostTime? {
        let frames = output.count / self.channels
        guard let origin = self.origin, frames > 0 else { return nil }
        let end = { (source: Source) in source.start + source.samples.count / self.channels }
        guard let furthest = self.sources.values.map(end).max() else { return nil }
        let waitedFor = self.sources.values.filter { !$0.ended && $0.heard.duration(to: now) <= self.hold }
        let ready = waitedFor.map(end).min() ?? furthest
        // A stretch before the earliest sound is skipped once no source waited for can still fill it.
        if let earliest = self.sources.values.filter({ !$0.samples.isEmpty }).map(\.start).min(),
            earliest > self.position, ready >= earliest
        {
            self.position = earliest
        }
        guard ready >= self.position + frames else { return nil }
        for index in output.indices { output[index] = 0 }
        for source in self.sources.values {
            let first = max(source.start, self.position)
            let last = min(source.start + source.samples.count / self.channels, self.position + frames)
            guard first < last else { continue }
            let from = (first - source.start) * self.channels
            let to = (first - self.position) * self.channels
            for offset in 0..<((last - first) * self.channels) {
                output[to + offset] += source.samples[from + offset]
            }
        }
        for index in output.indices { output[index] = min(1, max(-1, output[index])) }
        let time = origin.advanced(byFrames: self.position, sampleRate: self.sampleRate)
        self.position += frames
        self.dropBefore(self.position)
        return time
    }

    /// Forgets every source's sound before frame `frame`, and ended sources with nothing left.
    private mutating func dropBefore(_ frame: Int) {
        self.position = max(self.position, frame)
        for (id, var source) in self.sources {
            let stale = min(max(0, frame - source.start), source.samples.count / self.channels)
            if stale > 0 {
                source.samples.removeFirst(stale * self.channels)
                source.start += stale
            }
            self.sources[id] = source.ended && source.samples.isEmpty ? nil : source
        }
    }
}
