import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(3))) struct AudioPipelineTests {
    static let start = HostTime(nanoseconds: 5_000_000_000)

    /// 1 s of a 1 kHz sine at 44.1 kHz, stereo int16 interleaved, amplitude 0.5.
    static func sine44k() -> [Int16] {
        var samples: [Int16] = []
        for index in 0..<44_100 {
            let value = Int16(0.5 * 32_767 * sin(2 * Double.pi * 1_000 * Double(index) / 44_100))
            samples += [value, value]
        }
        return samples
    }

    /// The issue's end-to-end check: AudioInput → queue → Opus → libopus decode
    /// keeps the tone's frequency and level.
    @Test func sineThroughInputOpusAndBackKeepsFrequencyAndLevel() throws {
        let queue = try AudioFrameQueue(bufferCount: 200)
        var input = try AudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2, queue: queue)
        var encoder = try AudioEncoder(queue: queue, bitrate: 128_000)
        let decoder = OpusDecoder(channels: 2)
        let samples = Self.sine44k()
        var decoded: [Float] = []
        var frameTimes: [HostTime] = []
        // Feed 10 ms chunks (441 frames), as an audio callback would, and drain as we go.
        for chunk in 0..<100 {
            let slice = Array(samples[(chunk * 882)..<((chunk + 1) * 882)])
            let result = try input.enqueue(
                interleaved: slice,
                pts: Self.start.advanced(byFrames: chunk * 441, sampleRate: 44_100)
            )
            #expect(result.droppedFrames == 0)
            while let frame = try encoder.encodeNextFrame() {
                let (bytes, pts) = (frame.bytes, frame.pts)
                frameTimes.append(pts)
                decoded += try #require(decoder.decode(bytes))
            }
        }
        #expect(queue.droppedFrameCount == 0)
        // Nearly a second came out in 10 ms frames (the resampler holds back a little).
        #expect(frameTimes.count >= 97 && frameTimes.count <= 100, "\(frameTimes.count) frames")
        let left = stride(from: 0, to: decoded.count, by: 2).map { decoded[$0] }
        let steady = left[4_800..<(left.count - 960)]
        let frequency = zeroCrossingFrequency(steady, sampleRate: 48_000)
        #expect(abs(frequency - 1_000) < 3, "decoded tone at \(frequency) Hz")
        // A sine of amplitude 0.5 has an RMS of 0.354; Opus at 128 kbit/s keeps it within ±10 %.
        let level = rms(steady)
        #expect(abs(level - 0.5 / 2.0.squareRoot()) < 0.035, "decoded RMS \(level)")
        // Frames are 10 ms apart on the input's clock, moved back by the encoder lookahead.
        let lookahead = try OpusEncoder().lookahead
        #expect(frameTimes.first == Self.start.advanced(by: .zero - lookahead))
        for (earlier, later) in zip(frameTimes, frameTimes.dropFirst()) {
            #expect(earlier.duration(to: later) == .milliseconds(10))
        }
    }

    @Test func overflowDropsAndCountsAndNeverGrows() throws {
        let queue = try AudioFrameQueue(bufferCount: 5)
        var input = try AudioInput(sourceSampleRate: 48_000, sourceChannelCount: 1, queue: queue)
        let second = [Float](repeating: 0.25, count: 48_000)
        let result = try input.enqueue(interleaved: second, pts: Self.start)
        #expect(result == AudioEnqueueResult(acceptedFrames: 2_400, droppedFrames: 45_600))
        #expect(queue.droppedFrameCount == 45_600)
        #expect(queue.queuedFrameCount == 2_400)
        #expect(queue.buffersInUse == 5)
        let noBuffer = isNil(queue.makeBuffer())
        #expect(noBuffer)

        // Draining frees buffers for more audio.
        var encoder = try AudioEncoder(queue: queue)
        var frames = 0
        while try encoder.encodeNextFrame() != nil { frames += 1 }
        #expect(frames == 5)
        #expect(queue.buffersInUse == 0)
        let later = try input.enqueue(interleaved: Array(second[..<480]), pts: Self.start.advanced(by: .seconds(1)))
        #expect(later == AudioEnqueueResult(acceptedFrames: 480, droppedFrames: 0))
        #expect(queue.droppedFrameCount == 45_600)
    }

    @Test func pooledBuffersAreTakenWithoutCopyingAndOthersAreCopied() throws {
        let queue = try AudioFrameQueue(format: AudioStreamFormat(channelCount: 2), bufferCount: 3)
        var buffer = try unwrap(queue.makeBuffer())
        let left = (0..<480).map { Float($0) / 480 }
        let right = left.map { -$0 }
        try buffer.setSamples([left, right])
        #expect(queue.buffersInUse == 1)
        let taken = try queue.enqueue(buffer, pts: Self.start)
        #expect(taken == AudioEnqueueResult(acceptedFrames: 480, droppedFrames: 0))
        // Still one buffer in use: the queue holds the very same storage.
        #expect(queue.buffersInUse == 1)

        var own = AudioBuffer(channelCount: 2, frameCapacity: 1_000)
        try own.setSamples([[Float](repeating: 0.1, count: 1_000), [Float](repeating: 0.2, count: 1_000)])
        let copied = try queue.enqueue(own, pts: Self.start.advanced(byFrames: 480, sampleRate: 48_000))
        // Two pooled buffers were left: 960 frames fit, 40 are dropped.
        #expect(copied == AudioEnqueueResult(acceptedFrames: 960, droppedFrames: 40))
        #expect(queue.queuedFrameCount == 1_440)

        var mono = AudioBuffer(channelCount: 1, frameCapacity: 10)
        mono.frameCount = 10
        do {
            _ = try queue.enqueue(mono, pts: Self.start)
            Issue.record("accepted a mono buffer into a stereo queue")
        } catch {
            #expect(error.code == .audioFormatMismatch)
        }
    }

    @Test func monoDeinterleavedInt32BecomesStereoAtTheSameLevel() throws {
        let queue = try AudioFrameQueue(bufferCount: 200)
        var input = try AudioInput(sourceSampleRate: 16_000, sourceChannelCount: 1, queue: queue, quality: .fastest)
        let tone = (0..<16_000).map { Int32(0.5 * 2_147_483_647 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) }
        _ = try input.enqueue(deinterleaved: [tone], pts: Self.start)
        var encoder = try AudioEncoder(queue: queue)
        let decoder = OpusDecoder(channels: 2)
        var decoded: [Float] = []
        while let frame = try encoder.encodeNextFrame() {
            let bytes = frame.bytes
            decoded += try #require(decoder.decode(bytes))
        }
        let left = stride(from: 0, to: decoded.count, by: 2).map { decoded[$0] }
        let right = stride(from: 1, to: decoded.count, by: 2).map { decoded[$0] }
        let steady = 4_800..<(left.count - 960)
        #expect(abs(zeroCrossingFrequency(left[steady], sampleRate: 48_000) - 440) < 3)
        #expect(abs(rms(left[steady]) - rms(right[steady])) < 0.02)
        #expect(abs(rms(left[steady]) - 0.354) < 0.04)
    }

    /// Int16, Int32 and Float in the session's channel count are converted a
    /// block at a time, other sample types and channel counts a sample at a
    /// time: the same sound in each gives the very same Opus packets.
    @Test(arguments: [2, 1])
    func everySampleTypeGivesTheSamePackets(sourceChannels: Int) throws {
        struct Wrapped: AudioSample {
            let value: Int16
            var normalizedFloat: Float { Float(self.value) * (1 / 32_768) }
        }
        let stereo = Self.sine44k()
        let tone = sourceChannels == 2 ? stereo : stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        func packets<Sample: AudioSample>(_ samples: [Sample]) throws -> [[UInt8]] {
            let queue = try AudioFrameQueue(bufferCount: 200)
            var input = try AudioInput(sourceSampleRate: 44_100, sourceChannelCount: sourceChannels, queue: queue)
            var encoder = try AudioEncoder(queue: queue)
            _ = try input.enqueue(interleaved: samples, pts: Self.start)
            var packets: [[UInt8]] = []
            while let frame = try encoder.encodeNextFrame() { packets.append(frame.bytes) }
            return packets
        }
        let reference = try packets(tone)
        #expect(reference.count >= 45)
        #expect(try packets(tone.map { Int32($0) << 16 }) == reference)
        #expect(try packets(tone.map { Float($0) / 32_768 }) == reference)
        #expect(try packets(tone.map { Wrapped(value: $0) }) == reference)
    }

    /// Issue 34: an app's own buffers go in as they are (`AudioSampleBuffer`)
    /// — interleaved Int16 in the app's memory, planar Float, the session's
    /// own `AudioBuffer` — and give the very same packets as the arrays did.
    @Test(arguments: [2, 1])
    func anAppsOwnBuffersGiveTheSamePackets(sourceChannels: Int) throws {
        struct Interleaved: AudioSampleBuffer {
            let samples: UnsafeBufferPointer<Int16>
            let channelCount: Int
            var frameCount: Int { self.samples.count / self.channelCount }
            var isInterleaved: Bool { true }
            func withUnsafeSamples<Result>(
                ofPlane plane: Int, _ body: (UnsafeBufferPointer<Int16>) -> Result
            ) -> Result { body(self.samples) }
        }
        struct Planar: AudioSampleBuffer {
            let planes: [[Float]]
            var frameCount: Int { self.planes[0].count }
            var channelCount: Int { self.planes.count }
            var isInterleaved: Bool { false }
            func withUnsafeSamples<Result>(
                ofPlane plane: Int, _ body: (UnsafeBufferPointer<Float>) -> Result
            ) -> Result { self.planes[plane].withUnsafeBufferPointer(body) }
        }
        let stereo = Self.sine44k()
        let tone = sourceChannels == 2 ? stereo : stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        let planes = (0..<sourceChannels).map { channel in
            stride(from: channel, to: tone.count, by: sourceChannels).map { Float(tone[$0]) / 32_768 }
        }
        func packets(_ feed: (inout AudioInput) throws -> Void) throws -> [[UInt8]] {
            let queue = try AudioFrameQueue(bufferCount: 200)
            var input = try AudioInput(sourceSampleRate: 44_100, sourceChannelCount: sourceChannels, queue: queue)
            var encoder = try AudioEncoder(queue: queue)
            try feed(&input)
            var packets: [[UInt8]] = []
            while let frame = try encoder.encodeNextFrame() { packets.append(frame.bytes) }
            return packets
        }
        let reference = try packets { _ = try $0.enqueue(interleaved: tone, pts: Self.start) }
        #expect(reference.count >= 45)
        let interleaved = try packets { input in
            try tone.withUnsafeBufferPointer { samples in
                _ = try input.enqueue(Interleaved(samples: samples, channelCount: sourceChannels), pts: Self.start)
            }
        }
        #expect(interleaved == reference)
        #expect(try packets { _ = try $0.enqueue(Planar(planes: planes), pts: Self.start) } == reference)
        let pooled = try packets { input in
            var buffer = AudioBuffer(channelCount: sourceChannels, frameCapacity: planes[0].count)
            try buffer.setSamples(planes)
            _ = try input.enqueue(buffer, pts: Self.start)
        }
        #expect(pooled == reference)
    }

    @Test func anAppsBufferOfTheWrongShapeIsATypedError() throws {
        struct Planar: AudioSampleBuffer {
            let planes: [[Float]]
            let frameCount: Int
            var channelCount: Int { self.planes.count }
            var isInterleaved: Bool { false }
            func withUnsafeSamples<Result>(
                ofPlane plane: Int, _ body: (UnsafeBufferPointer<Float>) -> Result
            ) -> Result { self.planes[plane].withUnsafeBufferPointer(body) }
        }
        let queue = try AudioFrameQueue(bufferCount: 20)
        var input = try AudioInput(sourceSampleRate: 48_000, sourceChannelCount: 2, queue: queue)
        for buffer in [
            Planar(planes: [[0, 0]], frameCount: 2),  // one channel for a stereo input
            Planar(planes: [[0, 0], [0]], frameCount: 2),  // a channel shorter than its frames
        ] {
            #expect(throws: CastRemoteDisplayError.self) { _ = try input.enqueue(buffer, pts: Self.start) }
        }
        #expect(queue.queuedFrameCount == 0)
    }

    @Test func aJumpInCaptureTimeStartsANewTimeline() throws {
        let queue = try AudioFrameQueue(bufferCount: 50)
        var input = try AudioInput(sourceSampleRate: 48_000, sourceChannelCount: 2, queue: queue)
        let chunk = [Float](repeating: 0, count: 960)
        _ = try input.enqueue(interleaved: chunk, pts: Self.start)
        let gapStart = Self.start.advanced(by: .seconds(2))
        _ = try input.enqueue(interleaved: chunk, pts: gapStart)
        var encoder = try AudioEncoder(queue: queue)
        var times: [HostTime] = []
        while let frame = try encoder.encodeNextFrame() { times.append(frame.pts) }
        let lookahead = try OpusEncoder().lookahead
        #expect(times == [Self.start, gapStart].map { $0.advanced(by: .zero - lookahead) })
    }

    @Test func badAudioSettingsAreTypedErrors() throws {
        let queue = try AudioFrameQueue()
        for (rate, channels) in [(7_999, 2), (192_001, 2), (44_100, 0), (44_100, 9)] {
            do {
                _ = try AudioInput(sourceSampleRate: rate, sourceChannelCount: channels, queue: queue)
                Issue.record("accepted \(rate) Hz × \(channels)")
            } catch {
                #expect(error.code == .invalidConfiguration)
            }
        }
        #expect(throws: CastRemoteDisplayError.self) { _ = try AudioStreamFormat(sampleRate: 44_100) }
        #expect(throws: CastRemoteDisplayError.self) { _ = try AudioStreamFormat(channelCount: 3) }
        #expect(throws: CastRemoteDisplayError.self) { _ = try OpusEncoder(bitrate: 1) }
        var input = try AudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2, queue: queue)
        do {
            _ = try input.enqueue(interleaved: [Int16](repeating: 0, count: 3), pts: Self.start)
            Issue.record("accepted half a frame")
        } catch {
            #expect(error.code == .audioFormatMismatch)
        }
        var opus = try OpusEncoder()
        #expect(throws: CastRemoteDisplayError.self) { _ = try opus.encode(interleaved: [0, 0], pts: Self.start) }
    }
}
