import CastSoundCapture
import CastStreaming
import Testing

/// How one application's streams are mixed (`SoundMix`): by when each was
/// captured, waiting for every stream still playing, a paused one silent.
/// Stereo at 1 kHz, chunks of 10 frames (10 ms), so figures stay small.
@Suite(.timeLimit(.minutes(1))) struct SoundMixTests {
    private static let start = HostTime(nanoseconds: 1_000_000_000)

    private static func mix() -> SoundMix {
        SoundMix(channels: 2, sampleRate: 1_000, hold: .milliseconds(20), resync: .milliseconds(20), limit: .seconds(1))
    }

    /// Chunk `number` of a source: 10 frames of `value`, stamped `jitter` from its place.
    private static func add(
        _ value: Float, chunk number: Int, from id: UInt32, to mix: inout SoundMix, jitter: Duration = .zero
    ) {
        let samples = [Float](repeating: value, count: 20)
        let time = Self.start.advanced(by: .milliseconds(10 * number) + jitter)
        samples.withUnsafeBufferPointer { mix.add($0, from: id, capturedAt: time) }
    }

    /// The next 10 frames and their capture time, asked `now` after the
    /// start, or nil while they are not all there.
    private static func take(from mix: inout SoundMix, at now: Duration) -> (time: HostTime, samples: [Float])? {
        var output = [Float](repeating: .nan, count: 20)
        let time = output.withUnsafeMutableBufferPointer { mix.take(into: $0, now: Self.start.advanced(by: now)) }
        return time.map { ($0, output) }
    }

    /// The same, asked as chunk `number` ends.
    private static func take(from mix: inout SoundMix, after number: Int) -> (time: HostTime, samples: [Float])? {
        Self.take(from: &mix, at: .milliseconds(10 * (number + 1)))
    }

    @Test func twoStreamsAreAddedAndEachChunkWaitsForBoth() throws {
        var mix = Self.mix()
        Self.add(0.25, chunk: 0, from: 1, to: &mix)
        Self.add(0.5, chunk: 0, from: 2, to: &mix)
        let first = try #require(Self.take(from: &mix, after: 0))
        #expect(first.time == Self.start && first.samples == [Float](repeating: 0.75, count: 20))
        // The first stream's next chunk waits for the second's.
        Self.add(0.25, chunk: 1, from: 1, to: &mix)
        #expect(Self.take(from: &mix, after: 1) == nil)
        Self.add(0.5, chunk: 1, from: 2, to: &mix, jitter: .milliseconds(4))
        let second = try #require(Self.take(from: &mix, after: 1))
        #expect(second.time == Self.start.advanced(by: .milliseconds(10)))
        #expect(second.samples == [Float](repeating: 0.75, count: 20))
        #expect(Self.take(from: &mix, after: 1) == nil)
    }

    /// A stream's chunks follow each other whatever the jitter of their
    /// stamps: no frame is lost or doubled.
    @Test func aStreamsChunksFollowEachOtherDespiteJitter() throws {
        var mix = Self.mix()
        let jitters: [Duration] = [.zero, .milliseconds(7), .milliseconds(-6), .milliseconds(15), .milliseconds(2)]
        var taken: [Float] = []
        for (number, jitter) in jitters.enumerated() {
            let samples = (0..<20).map { Float(number * 10 + $0 / 2) / 100 }
            let time = Self.start.advanced(by: .milliseconds(10 * number) + jitter)
            samples.withUnsafeBufferPointer { mix.add($0, from: 7, capturedAt: time) }
            taken += try #require(Self.take(from: &mix, after: number)).samples
        }
        #expect(taken == (0..<100).map { Float($0 / 2) / 100 })
    }

    /// A stream that pauses gives nothing: once it gave nothing for the
    /// hold, the other is heard alone; when it plays again it is placed by
    /// its stamp and mixed again.
    @Test func aPausedStreamIsSilentAndJoinsAgainWhereItResumes() throws {
        var mix = Self.mix()
        Self.add(0.25, chunk: 0, from: 1, to: &mix)
        Self.add(0.5, chunk: 0, from: 2, to: &mix)
        #expect(try #require(Self.take(from: &mix, after: 0)).samples.allSatisfy { $0 == 0.75 })
        Self.add(0.25, chunk: 1, from: 1, to: &mix)
        Self.add(0.25, chunk: 2, from: 1, to: &mix)
        #expect(Self.take(from: &mix, after: 2) == nil, "within the hold the paused stream is waited for")
        Self.add(0.25, chunk: 3, from: 1, to: &mix)
        for _ in 1...3 { #expect(try #require(Self.take(from: &mix, after: 3)).samples.allSatisfy { $0 == 0.25 }) }
        Self.add(0.25, chunk: 4, from: 1, to: &mix)
        Self.add(0.5, chunk: 4, from: 2, to: &mix)
        let resumed = try #require(Self.take(from: &mix, after: 4))
        #expect(resumed.time == Self.start.advanced(by: .milliseconds(40)))
        #expect(resumed.samples.allSatisfy { $0 == 0.75 })
    }

    /// A stream placed by its stamps ahead of another still playing (whose
    /// chunks follow on from an earlier place) does not skip the other's
    /// sound: the stretch between is not empty.
    @Test func aStreamAheadDoesNotSkipTheSoundAnotherStillGives() throws {
        var mix = Self.mix()
        Self.add(0.25, chunk: 0, from: 1, to: &mix)
        Self.add(0.5, chunk: 0, from: 2, to: &mix)
        _ = try #require(Self.take(from: &mix, after: 0))
        // The first's next chunk arrives late, within the resync: it follows on at 10 ms, and
        // is handed out alone (the second gave nothing for longer than the hold).
        Self.add(0.25, chunk: 1, from: 1, to: &mix, jitter: .milliseconds(15))
        #expect(try #require(Self.take(from: &mix, at: .milliseconds(35))).samples.allSatisfy { $0 == 0.25 })
        // The second plays again, placed by its stamp at 35 ms; the first, heard 10 ms ago and
        // all handed out, is still waited for: its next chunk follows on at 20 ms.
        Self.add(0.5, chunk: 1, from: 2, to: &mix, jitter: .milliseconds(25))
        #expect(Self.take(from: &mix, at: .milliseconds(45)) == nil)
        Self.add(0.25, chunk: 2, from: 1, to: &mix, jitter: .milliseconds(15))
        let next = try #require(Self.take(from: &mix, at: .milliseconds(45)))
        #expect(next.time == Self.start.advanced(by: .milliseconds(20)))
        #expect(next.samples.allSatisfy { $0 == 0.25 }, "the first stream's chunk, not skipped")
    }

    /// A stream that ended is not waited for; what it gave is still heard.
    @Test func anEndedStreamIsNotWaitedFor() throws {
        var mix = Self.mix()
        Self.add(0.25, chunk: 0, from: 1, to: &mix)
        Self.add(0.5, chunk: 0, from: 2, to: &mix)
        Self.add(0.5, chunk: 1, from: 2, to: &mix)
        mix.end(2)
        #expect(mix.playing == 1)
        let first = try #require(Self.take(from: &mix, after: 1))
        #expect(first.samples.allSatisfy { $0 == 0.75 })
        #expect(Self.take(from: &mix, after: 1) == nil, "the first stream's second chunk is not there yet")
        Self.add(0.25, chunk: 1, from: 1, to: &mix)
        #expect(try #require(Self.take(from: &mix, after: 1)).samples.allSatisfy { $0 == 0.75 })
    }

    /// A time when nothing played is skipped, not sent as silence; loud streams together stay within full scale.
    @Test func aSilentStretchIsSkippedAndTheSumIsClamped() throws {
        var mix = Self.mix()
        Self.add(0.8, chunk: 0, from: 1, to: &mix)
        Self.add(0.8, chunk: 0, from: 2, to: &mix)
        #expect(try #require(Self.take(from: &mix, after: 0)).samples.allSatisfy { $0 == 1 })
        Self.add(-0.8, chunk: 500, from: 1, to: &mix)
        Self.add(-0.8, chunk: 500, from: 2, to: &mix)
        let later = try #require(Self.take(from: &mix, after: 500))
        #expect(later.time == Self.start.advanced(by: .seconds(5)))
        #expect(later.samples.allSatisfy { $0 == -1 })
    }

    /// A reader that stalls: at most the limit's second is kept, the newest.
    @Test func aStalledReaderKeepsOnlyTheNewestSecond() throws {
        var mix = Self.mix()
        for number in 0..<300 { Self.add(0.25, chunk: number, from: 1, to: &mix) }
        let oldestKept = try #require(Self.take(from: &mix, after: 299))
        #expect(oldestKept.time == Self.start.advanced(by: .seconds(2)))
    }
}
