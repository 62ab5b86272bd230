/// Fixed working memory of an ``AudioInput``: one block of channel-mapped
/// float input and room for its resampled output, both interleaved in the
/// session's channel count. Allocated once; nothing is allocated per call.
//
// @unchecked Sendable: mutable, but owned by exactly one noncopyable
// `AudioInput` and used only from its `mutating` methods.
final class AudioScratch: @unchecked Sendable {
    let channelCount: Int
    let inputBase: UnsafeMutablePointer<Float>
    let output: UnsafeMutableBufferPointer<Float>

    init(channelCount: Int, inputFrames: Int, outputFrames: Int) {
        self.channelCount = channelCount
        self.inputBase = .allocate(capacity: inputFrames * channelCount)
        self.inputBase.initialize(repeating: 0, count: inputFrames * channelCount)
        self.output = .allocate(capacity: outputFrames * channelCount)
        self.output.initialize(repeating: 0)
    }

    deinit {
        self.inputBase.deallocate()
        self.output.deallocate()
    }

    /// The input from `frame` on, `frames` long.
    func input(fromFrame frame: Int, frames: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: self.inputBase + frame * self.channelCount, count: frames * self.channelCount)
    }

    /// Fills the input with `frames` frames read through `sample`, mapping
    /// `sourceChannels` onto the session's channels: mono is copied to both
    /// sides, stereo takes the first two source channels, mono output
    /// averages every source channel.
    func mapChannels(frames: Int, sourceChannels: Int, sample: (_ frame: Int, _ channel: Int) -> Float) {
        let input = self.inputBase
        switch (sourceChannels, self.channelCount) {
        case (1, 1):
            for frame in 0..<frames { input[frame] = sample(frame, 0) }
        case (1, _):
            for frame in 0..<frames {
                let value = sample(frame, 0)
                input[2 * frame] = value
                input[2 * frame + 1] = value
            }
        case (_, 1):
            let scale = 1 / Float(sourceChannels)
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<sourceChannels { sum += sample(frame, channel) }
                input[frame] = sum * scale
            }
        default:
            for frame in 0..<frames {
                input[2 * frame] = sample(frame, 0)
                input[2 * frame + 1] = sample(frame, 1)
            }
        }
    }
}
