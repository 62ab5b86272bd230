import CSampleRate

/// Converts whatever audio an app has into the session's format and queues it.
///
/// The SDK's `GCKRemoteDisplayAudioInput`. Give it `Int16`, `Int32` or
/// `Float` samples, interleaved or one array per channel, at any rate from
/// 8 kHz to 192 kHz, mono or stereo (more source channels: the first two are
/// used for stereo, all are averaged for mono). It converts to float, maps
/// the channels, resamples through libsamplerate — a streaming converter
/// whose state carries from call to call — and queues it on the
/// ``AudioFrameQueue``, interleaved as the encoder takes it.
///
/// Capture times follow the samples: each call's `pts` is the capture time
/// of its first sample. While calls are contiguous the output timeline runs
/// on without drift; a jump of more than 40 ms starts a new timeline (and a
/// fresh resampler state).
public struct AudioInput: ~Copyable, Sendable {
    /// The rate of the samples the app enqueues, Hz.
    public let sourceSampleRate: Int
    /// The channels of the samples the app enqueues.
    public let sourceChannelCount: Int
    private let queue: AudioFrameQueue
    private let resampler: Resampler?
    private let scratch: AudioScratch
    private var timeline: AudioTimeline?

    /// Source frames converted per step, bounding the scratch memory.
    static let blockFrames = 1_024
    /// A gap or overlap between calls larger than this starts a new timeline.
    static let discontinuityThreshold: Duration = .milliseconds(40)

    /// Creates an input feeding `queue`.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration`` for a
    ///   rate outside 8 kHz…192 kHz or a channel count outside 1…8.
    public init(
        sourceSampleRate: Int,
        sourceChannelCount: Int,
        queue: AudioFrameQueue,
        quality: ResamplerQuality = .medium
    ) throws(CastRemoteDisplayError) {
        guard RemoteDisplayLimits.sourceSampleRates.contains(sourceSampleRate) else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "source rate \(sourceSampleRate) Hz is outside 8…192 kHz")
        }
        guard (1...8).contains(sourceChannelCount) else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "\(sourceChannelCount) source channels; 1…8 are accepted")
        }
        let format = queue.format
        let resampler: Resampler? =
            sourceSampleRate == format.sampleRate
            ? nil
            : try Resampler(
                from: sourceSampleRate,
                to: format.sampleRate,
                channelCount: format.channelCount,
                quality: quality
            )
        self.sourceSampleRate = sourceSampleRate
        self.sourceChannelCount = sourceChannelCount
        self.queue = queue
        self.resampler = resampler
        let maximumRatio = Double(format.sampleRate) / Double(sourceSampleRate)
        self.scratch = AudioScratch(
            channelCount: format.channelCount,
            inputFrames: Self.blockFrames,
            outputFrames: Int((Double(Self.blockFrames) * maximumRatio).rounded(.up)) + 64
        )
    }

    /// Converts and queues interleaved samples (`frames × sourceChannelCount` values).
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` when the
    ///   count is not a whole number of frames; ``CastRemoteDisplayError/Code-swift.struct/codecFailure``
    ///   if the resampler fails.
    public mutating func enqueue<Sample: AudioSample>(
        interleaved samples: [Sample],
        pts: HostTime
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        guard samples.count % self.sourceChannelCount == 0 else {
            throw CastRemoteDisplayError(
                .audioFormatMismatch,
                "\(samples.count) samples are not whole frames of \(self.sourceChannelCount) channels"
            )
        }
        return try samples.withUnsafeBufferPointer { samples throws(CastRemoteDisplayError) in
            try self.enqueue(interleavedSamples: samples, pts: pts)
        }
    }

    /// Converts and queues `buffer`, an app's own audio, read in place:
    /// interleaved or planar, in the input's source channel count.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` when the
    ///   buffer's channel count is not ``sourceChannelCount`` or a plane is shorter than
    ///   its frames; ``CastRemoteDisplayError/Code-swift.struct/codecFailure`` if the resampler fails.
    public mutating func enqueue<Buffer: AudioSampleBuffer & ~Copyable>(
        _ buffer: borrowing Buffer,
        pts: HostTime
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        let channels = buffer.channelCount
        let frames = max(buffer.frameCount, 0)
        guard channels == self.sourceChannelCount else {
            throw CastRemoteDisplayError(
                .audioFormatMismatch, "a buffer of \(channels) channels for an input of \(self.sourceChannelCount)")
        }
        if buffer.isInterleaved {
            let count = frames * channels
            let result = buffer.withUnsafeSamples(ofPlane: 0) { samples in
                Result { () throws(CastRemoteDisplayError) -> AudioEnqueueResult in
                    guard samples.count >= count else {
                        throw CastRemoteDisplayError(
                            .audioFormatMismatch,
                            "\(frames) frames need \(count) samples; the plane holds \(samples.count)")
                    }
                    return try self.enqueue(
                        interleavedSamples: UnsafeBufferPointer(rebasing: samples[..<count]), pts: pts)
                }
            }
            return try result.get()
        }
        for plane in 0..<channels where buffer.withUnsafeSamples(ofPlane: plane, { $0.count }) < frames {
            throw CastRemoteDisplayError(.audioFormatMismatch, "channel \(plane) holds fewer than \(frames) frames")
        }
        return try self.convert(frameCount: frames, pts: pts) { first, count, scratch in
            let input = scratch.inputBase
            if scratch.channelCount == 1 {
                // Mono out: every source channel averaged, as `AudioScratch.mapChannels` does.
                input.update(repeating: 0, count: count)
                for plane in 0..<channels {
                    buffer.withUnsafeSamples(ofPlane: plane) { samples in
                        for frame in 0..<count { input[frame] += samples[first + frame].normalizedFloat }
                    }
                }
                let scale = 1 / Float(channels)
                for frame in 0..<count { input[frame] *= scale }
            } else {
                // Stereo out: mono on both sides, else the first two channels.
                for side in 0..<2 {
                    buffer.withUnsafeSamples(ofPlane: channels == 1 ? 0 : side) { samples in
                        for frame in 0..<count { input[2 * frame + side] = samples[first + frame].normalizedFloat }
                    }
                }
            }
        }
    }

    /// Converts and queues whole interleaved frames, the SDK's own sample
    /// types a block at a time.
    private mutating func enqueue<Sample: AudioSample>(
        interleavedSamples samples: UnsafeBufferPointer<Sample>,
        pts: HostTime
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        // The SDK's own sample types are converted a block at a time, the
        // integers by libsamplerate (÷ 32768 and ÷ 2³¹, as `normalizedFloat`):
        // called from another module this method is not specialized, and one
        // call through the protocol per sample cost about 5 % of the audio
        // path (perf); one closure call per sample still cost a few percent.
        if Sample.self == Int16.self {
            return try samples.withMemoryRebound(to: Int16.self) { samples throws(CastRemoteDisplayError) in
                try self.convert(interleaved: samples, pts: pts) { src_short_to_float_array($0, $1, $2) }
            }
        }
        if Sample.self == Float.self {
            return try samples.withMemoryRebound(to: Float.self) { samples throws(CastRemoteDisplayError) in
                try self.convert(interleaved: samples, pts: pts) { $1.update(from: $0, count: Int($2)) }
            }
        }
        if Sample.self == Int32.self {
            return try samples.withMemoryRebound(to: Int32.self) { samples throws(CastRemoteDisplayError) in
                try self.convert(interleaved: samples, pts: pts) { src_int_to_float_array($0, $1, $2) }
            }
        }
        return try self.convert(mapping: samples, pts: pts)
    }

    /// Converts and queues whole interleaved frames (already checked) a
    /// sample at a time, mapping their channels onto the session's.
    private mutating func convert<Sample: AudioSample>(
        mapping samples: UnsafeBufferPointer<Sample>,
        pts: HostTime
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        let channels = self.sourceChannelCount
        return try self.convert(frameCount: samples.count / channels, pts: pts) { first, frames, scratch in
            scratch.mapChannels(frames: frames, sourceChannels: channels) { frame, channel in
                samples[(first + frame) * channels + channel].normalizedFloat
            }
        }
    }

    /// Converts and queues interleaved samples a block at a time by
    /// `convertBlock(source, target, sampleCount)` when they are already in
    /// the session's channel count; otherwise as ``convert(mapping:pts:)``.
    private mutating func convert<Sample: AudioSample>(
        interleaved samples: UnsafeBufferPointer<Sample>,
        pts: HostTime,
        block convertBlock: (UnsafePointer<Sample>, UnsafeMutablePointer<Float>, Int32) -> Void
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        let channels = self.sourceChannelCount
        guard channels == self.queue.format.channelCount, let base = samples.baseAddress else {
            return try self.convert(mapping: samples, pts: pts)
        }
        return try self.convert(frameCount: samples.count / channels, pts: pts) { first, frames, scratch in
            convertBlock(base + first * channels, scratch.inputBase, Int32(frames * channels))
        }
    }

    /// Converts and queues one array of samples per channel (equal lengths).
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/audioFormatMismatch`` when the
    ///   number of arrays is not the source channel count or their lengths differ.
    public mutating func enqueue<Sample: AudioSample>(
        deinterleaved channels: [[Sample]],
        pts: HostTime
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        let frames = channels.first?.count ?? 0
        guard channels.count == self.sourceChannelCount, channels.allSatisfy({ $0.count == frames }) else {
            throw CastRemoteDisplayError(
                .audioFormatMismatch,
                "expected \(self.sourceChannelCount) channel arrays of equal length"
            )
        }
        let sourceChannels = self.sourceChannelCount
        return try self.convert(frameCount: frames, pts: pts) { first, frames, scratch in
            scratch.mapChannels(frames: frames, sourceChannels: sourceChannels) { frame, channel in
                channels[channel][first + frame].normalizedFloat
            }
        }
    }

    /// The conversion pipeline: block by block, `fill` the scratch input with
    /// float in the session's channels, resample if needed, and queue.
    private mutating func convert(
        frameCount: Int,
        pts: HostTime,
        fill: (_ firstFrame: Int, _ frames: Int, _ scratch: AudioScratch) -> Void
    ) throws(CastRemoteDisplayError) -> AudioEnqueueResult {
        let outputRate = self.queue.format.sampleRate
        if self.timeline?.isContinuous(at: pts, threshold: Self.discontinuityThreshold) != true {
            self.timeline = AudioTimeline(start: pts, inputRate: self.sourceSampleRate, outputRate: outputRate)
            self.resampler?.reset()
        }
        var result = AudioEnqueueResult(acceptedFrames: 0, droppedFrames: 0)
        var block = 0
        while block < frameCount {
            let frames = min(Self.blockFrames, frameCount - block)
            fill(block, frames, self.scratch)
            self.timeline?.consumed(frames)
            if let resampler = self.resampler {
                var consumed = 0
                while consumed < frames {
                    let step = try resampler.process(
                        input: self.scratch.input(fromFrame: consumed, frames: frames - consumed),
                        output: self.scratch.output
                    )
                    consumed += step.consumed
                    self.queueScratch(self.scratch.output.baseAddress!, frames: step.produced, into: &result)
                    if step.consumed == 0 && step.produced == 0 { break }
                }
            } else {
                self.queueScratch(self.scratch.inputBase, frames: frames, into: &result)
            }
            block += frames
        }
        return result
    }

    /// Queues `frames` interleaved frames from `source` at the timeline's next output time.
    private mutating func queueScratch(
        _ source: UnsafeMutablePointer<Float>,
        frames: Int,
        into result: inout AudioEnqueueResult
    ) {
        guard frames > 0, let pts = self.timeline?.produced(frames) else { return }
        let channels = self.queue.format.channelCount
        let step = self.queue.append(frameCount: frames, pts: pts) { target, sourceOffset, count in
            target.update(from: source + sourceOffset * channels, count: count * channels)
        }
        result.acceptedFrames += step.acceptedFrames
        result.droppedFrames += step.droppedFrames
    }
}

/// Where an ``AudioInput``'s input and output are on the host clock.
struct AudioTimeline: Sendable {
    let start: HostTime
    let inputRate: Int
    let outputRate: Int
    private(set) var inputFrames = 0
    private(set) var outputFrames = 0

    init(start: HostTime, inputRate: Int, outputRate: Int) {
        self.start = start
        self.inputRate = inputRate
        self.outputRate = outputRate
    }

    /// Whether input stamped `pts` continues where the last input ended.
    func isContinuous(at pts: HostTime, threshold: Duration) -> Bool {
        let expected = self.start.advanced(byFrames: self.inputFrames, sampleRate: self.inputRate)
        return abs(pts.nanoseconds - expected.nanoseconds) <= threshold.inNanoseconds
    }

    mutating func consumed(_ frames: Int) {
        self.inputFrames += frames
    }

    /// Records `frames` of output and returns the capture time of their first.
    mutating func produced(_ frames: Int) -> HostTime {
        let pts = self.start.advanced(byFrames: self.outputFrames, sampleRate: self.outputRate)
        self.outputFrames += frames
        return pts
    }
}
