/// Audio an app keeps in its own buffers, which an ``AudioInput`` reads in
/// place: adopt it on the app's buffer type (a sound server's period, a
/// decoder's frame, a mixer's output) and enqueue the buffer itself, with no
/// copy into an array first.
///
/// The samples are `Int16`, `Int32`, `Float` or any ``AudioSample``,
/// interleaved (one plane, frame after frame) or planar (one plane per
/// channel). ``AudioBuffer``, the session's own buffer, is planar `Float`.
///
/// ```swift
/// struct Period: AudioSampleBuffer {          // a sound server's interleaved Int16
///     let samples: UnsafeBufferPointer<Int16>
///     var frameCount: Int { samples.count / 2 }
///     var channelCount: Int { 2 }
///     var isInterleaved: Bool { true }
///     func withUnsafeSamples<Result>(ofPlane plane: Int, _ body: (UnsafeBufferPointer<Int16>) -> Result) -> Result {
///         body(samples)
///     }
/// }
/// _ = try input.enqueue(Period(samples: pointer), pts: captureTime)
/// ```
public protocol AudioSampleBuffer: ~Copyable {
    /// The type of one sample.
    associatedtype Sample: AudioSample
    /// Frames (samples per channel) in the buffer.
    var frameCount: Int { get }
    /// Channels.
    var channelCount: Int { get }
    /// Whether the samples are interleaved in one plane; otherwise there is one plane per channel.
    var isInterleaved: Bool { get }
    /// Gives `body` the samples of `plane`: the one plane of interleaved
    /// audio (at least ``frameCount`` × ``channelCount`` samples), or one
    /// channel's (at least ``frameCount``).
    func withUnsafeSamples<Result>(ofPlane plane: Int, _ body: (UnsafeBufferPointer<Sample>) -> Result) -> Result
}

extension AudioBuffer: AudioSampleBuffer {
    /// Planar: one plane per channel.
    public var isInterleaved: Bool { false }

    /// Gives `body` the valid samples of channel `plane`.
    public func withUnsafeSamples<Result>(ofPlane plane: Int, _ body: (UnsafeBufferPointer<Float>) -> Result) -> Result
    {
        self.withUnsafeSamples(ofChannel: plane, body)
    }
}
