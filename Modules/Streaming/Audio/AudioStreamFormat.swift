/// The session's audio format: deinterleaved 32-bit float at one sample rate
/// and channel count — what ``AudioBuffer``s hold and the Opus encoder reads.
public struct AudioStreamFormat: Sendable, Hashable, CustomStringConvertible {
    /// Samples per second per channel. Cast Streaming's Opus runs at 48 kHz.
    public let sampleRate: Int
    /// 1 (mono) or 2 (stereo).
    public let channelCount: Int

    /// Creates a format.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration``
    ///   unless `channelCount` is 1 or 2 and `sampleRate` is 48 000.
    public init(sampleRate: Int = 48_000, channelCount: Int = 2) throws(CastRemoteDisplayError) {
        guard sampleRate == RemoteDisplayLimits.opusSampleRate else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "the session's audio runs at 48 kHz, not \(sampleRate) Hz")
        }
        guard channelCount == 1 || channelCount == 2 else {
            throw CastRemoteDisplayError(
                .invalidConfiguration, "\(channelCount) channels; Remote Display sends mono or stereo")
        }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// 48 kHz stereo, the SDK's default.
    public static let stereo48kHz = AudioStreamFormat(validSampleRate: 48_000, channelCount: 2)

    private init(validSampleRate: Int, channelCount: Int) {
        self.sampleRate = validSampleRate
        self.channelCount = channelCount
    }

    public var description: String { "\(self.sampleRate) Hz × \(self.channelCount)" }
}

/// A PCM sample type ``AudioInput`` converts from: `Int16`, `Int32` or `Float`.
public protocol AudioSample: BitwiseCopyable, Sendable {
    /// The sample as a float in −1…1 (integers scale by their full range).
    var normalizedFloat: Float { get }
}

extension Int16: AudioSample {
    /// `self / 32768`.
    @inlinable public var normalizedFloat: Float { Float(self) * (1 / 32_768) }
}

extension Int32: AudioSample {
    /// `self / 2³¹`.
    @inlinable public var normalizedFloat: Float { Float(self) * (1 / 2_147_483_648) }
}

extension Float: AudioSample {
    /// The sample itself.
    @inlinable public var normalizedFloat: Float { self }
}
