import CSampleRate

/// The resampling quality of an ``AudioInput`` (libsamplerate's converters).
public enum ResamplerQuality: Sendable, Hashable {
    /// Band-limited sinc, 97 dB SNR, 97 % bandwidth: the most CPU.
    case best
    /// Band-limited sinc, 97 dB SNR, 90 % bandwidth: the default.
    case medium
    /// Band-limited sinc, 97 dB SNR, 80 % bandwidth: the least CPU of the sinc converters.
    case fastest
    /// Linear interpolation: cheap, audibly worse.
    case linear

    var converter: Int32 {
        switch self {
        case .best: Int32(SRC_SINC_BEST_QUALITY)
        case .medium: Int32(SRC_SINC_MEDIUM_QUALITY)
        case .fastest: Int32(SRC_SINC_FASTEST)
        case .linear: Int32(SRC_LINEAR)
        }
    }
}

/// A streaming libsamplerate converter for interleaved float: its filter
/// state carries across calls, so consecutive chunks join without clicks.
//
// @unchecked Sendable: the SRC_STATE is mutable, but a `Resampler` belongs to
// exactly one noncopyable `AudioInput` and is only used from its `mutating`
// methods.
final class Resampler: @unchecked Sendable {
    private let state: OpaquePointer
    let ratio: Double
    let channelCount: Int

    init(from inputRate: Int, to outputRate: Int, channelCount: Int, quality: ResamplerQuality)
        throws(CastRemoteDisplayError)
    {
        var status: Int32 = 0
        guard let state = src_new(quality.converter, Int32(channelCount), &status) else {
            throw Self.failure(status, "create a converter")
        }
        self.state = state
        self.ratio = Double(outputRate) / Double(inputRate)
        self.channelCount = channelCount
    }

    deinit {
        src_delete(self.state)
    }

    /// Converts as much of `input` as fits in `output` (both interleaved);
    /// returns the frames consumed and produced.
    func process(
        input: UnsafeBufferPointer<Float>,
        output: UnsafeMutableBufferPointer<Float>
    ) throws(CastRemoteDisplayError) -> (consumed: Int, produced: Int) {
        var data = SRC_DATA()
        data.data_in = input.baseAddress
        data.input_frames = input.count / self.channelCount
        data.data_out = output.baseAddress
        data.output_frames = output.count / self.channelCount
        data.src_ratio = self.ratio
        data.end_of_input = 0
        let status = src_process(self.state, &data)
        guard status == 0 else { throw Self.failure(status, "resample") }
        return (data.input_frames_used, data.output_frames_gen)
    }

    /// Forgets the filter history, as after a gap in the input.
    func reset() {
        src_reset(self.state)
    }

    private static func failure(_ status: Int32, _ operation: String) -> CastRemoteDisplayError {
        CastRemoteDisplayError(
            .codecFailure,
            "libsamplerate failed to \(operation)",
            cause: CastRemoteDisplayError.LibraryFailure(
                library: "libsamplerate",
                status: status,
                detail: String(cString: src_strerror(status))
            )
        )
    }
}
