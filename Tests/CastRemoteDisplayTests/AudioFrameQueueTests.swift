import Testing

@testable import CastRemoteDisplay
@_spi(Receiver) @testable import CastStreaming

/// What leaves the queue for the encoder: every sample, in order, interleaved,
/// whichever way it came in — an app's pooled buffer (planes, taken as it
/// is), an app's own buffer (copied), or an ``AudioInput`` (copied whole,
/// topping up the last copy) — and across the buffers' edges.
@Suite(.timeLimit(.minutes(3))) struct AudioFrameQueueTests {
    static let start = HostTime(nanoseconds: 5_000_000_000)

    /// Frame `frame`'s sample on `channel`: distinct for every frame and channel.
    static func sample(_ frame: Int, _ channel: Int) -> Float {
        Float(frame) + (channel == 0 ? 0.25 : 0.75)
    }

    @Test func everyWayInLeavesInOrderInterleaved() throws {
        let queue = try AudioFrameQueue(format: AudioStreamFormat(channelCount: 2), bufferCount: 8)
        // Frames 0..<300: a pooled buffer, planes.
        var pooled = try unwrap(queue.makeBuffer())
        try pooled.setSamples((0..<2).map { channel in (0..<300).map { Self.sample($0, channel) } })
        _ = try queue.enqueue(pooled, pts: Self.start)
        // Frames 300..<1000: the app's own buffer, copied into two pooled ones.
        var own = AudioBuffer(channelCount: 2, frameCapacity: 700)
        try own.setSamples((0..<2).map { channel in (300..<1_000).map { Self.sample($0, channel) } })
        _ = try queue.enqueue(own, pts: Self.start.advanced(byFrames: 300, sampleRate: 48_000))
        // Frames 1000..<2000 through an input at the session's rate, in
        // chunks of 250 that top up the last copy and then take new buffers.
        var input = try AudioInput(sourceSampleRate: 48_000, sourceChannelCount: 2, queue: queue)
        for first in stride(from: 1_000, to: 2_000, by: 250) {
            let chunk = (first..<(first + 250)).flatMap { [Self.sample($0, 0), Self.sample($0, 1)] }
            let result = try input.enqueue(
                interleaved: chunk, pts: Self.start.advanced(byFrames: first, sampleRate: 48_000))
            #expect(result == AudioEnqueueResult(acceptedFrames: 250, droppedFrames: 0))
        }
        #expect(queue.queuedFrameCount == 2_000)

        var frames = [Float](repeating: 0, count: 480 * 2)
        for first in stride(from: 0, to: 1_920, by: 480) {
            let pts = frames.withUnsafeMutableBufferPointer {
                queue.dequeueInterleaved(frames: 480, into: $0.baseAddress!)
            }
            // Each hop by a frame count rounds to the nanosecond (20 833.3 ns a frame).
            let expectedPTS = Self.start.advanced(byFrames: first, sampleRate: 48_000)
            #expect(abs((pts?.nanoseconds ?? 0) - expectedPTS.nanoseconds) <= 2, "frame \(first)'s time")
            let expected = (first..<(first + 480)).flatMap { [Self.sample($0, 0), Self.sample($0, 1)] }
            #expect(frames == expected, "frames \(first)..<\(first + 480)")
        }
        // 80 frames are left: fewer than a frame, so nothing is taken.
        let short = frames.withUnsafeMutableBufferPointer {
            queue.dequeueInterleaved(frames: 480, into: $0.baseAddress!)
        }
        #expect(short == nil)
        #expect(queue.queuedFrameCount == 80)
    }
}
