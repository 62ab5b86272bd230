import CastRemoteDisplay
import Testing

@testable import CastSpeakers

/// The ring a PipeWire sink keeps for its reader: sound in order, dated by
/// its arrival, bounded when the reader falls behind.
@Suite(.timeLimit(.minutes(1))) struct SoundRingTests {
    static func write(_ ring: inout SoundRing, _ samples: [Float], at nanoseconds: Int64) {
        samples.withUnsafeBufferPointer { ring.write($0, at: HostTime(nanoseconds: nanoseconds)) }
    }

    @Test func soundIsReadInOrderDatedByWhenItsQuantumArrived() {
        var ring = SoundRing(seconds: 1, channelCount: 2, sampleRate: 1_000)
        // Two quanta of 4 frames (8 samples), the second arriving 4 ms after the first.
        Self.write(&ring, (0..<8).map(Float.init), at: 1_000_000_000)
        Self.write(&ring, (8..<16).map(Float.init), at: 1_004_000_000)
        var target = [Float](repeating: -1, count: 6)
        let first = target.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(target == [0, 1, 2, 3, 4, 5])
        #expect(first?.count == 6)
        #expect(first?.time == HostTime(nanoseconds: 1_000_000_000))
        let second = target.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(target == [6, 7, 8, 9, 10, 11])
        // Frame 3 (samples 6, 7): 3 ms after the first quantum's start.
        #expect(second?.time == HostTime(nanoseconds: 1_003_000_000))
        #expect(ring.available == 4)
    }

    @Test func aPartReadLeavesTheRestOfTheTargetAsItWas() {
        var ring = SoundRing(seconds: 1, channelCount: 2, sampleRate: 1_000)
        Self.write(&ring, [1, 2], at: 0)
        var target = [Float](repeating: 0, count: 4)
        let read = target.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(read?.count == 2)
        #expect(target == [1, 2, 0, 0])
        #expect(target.withUnsafeMutableBufferPointer { ring.read(into: $0) } == nil)
    }

    @Test func aReaderThatFallsBehindLosesTheOldestSoundAndMemoryStaysBounded() {
        var ring = SoundRing(seconds: 1, channelCount: 1, sampleRate: 4)
        Self.write(&ring, [1, 2, 3], at: 0)
        Self.write(&ring, [4, 5, 6], at: 750_000_000)
        #expect(ring.available == 4)
        #expect(ring.dropped == 2)
        var target = [Float](repeating: 0, count: 4)
        let read = target.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(target == [3, 4, 5, 6])
        // Sample 3 of the stream is frame 2, one frame (250 ms) before the second quantum.
        #expect(read?.time == HostTime(nanoseconds: 500_000_000))
        // A quantum longer than the whole ring keeps its end.
        Self.write(&ring, (0..<10).map(Float.init), at: 0)
        #expect(ring.available == 4)
        _ = target.withUnsafeMutableBufferPointer { ring.read(into: $0) }
        #expect(target == [6, 7, 8, 9])
    }

    @Test func clearingForgetsWhatWasNotRead() {
        var ring = SoundRing(seconds: 1, channelCount: 2, sampleRate: 1_000)
        Self.write(&ring, [1, 2, 3, 4], at: 0)
        ring.clear()
        #expect(ring.available == 0)
    }
}
