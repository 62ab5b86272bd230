public import CastEmulator
import Foundation
import NIOConcurrencyHelpers

/// The tones in the last second an emulated speaker decoded: how loud each
/// pitch is (Goertzel's filter over the first channel), where
/// ``DecodedTone`` gives one pitch by zero crossings and cannot tell two
/// tones played together apart.
public final class HeardTones: Sendable {
    private static let window = 48_000
    private let state = NIOLockedValueBox((samples: [Float](), decoded: 0))

    /// Listens to what `emulator` decodes from now on (before its stream starts).
    public init(_ emulator: CastEmulator) {
        emulator.streaming.observer.sound = { [state] _, sound, channels in
            guard channels > 0 else { return }
            state.withLockedValue { state in
                state.samples += stride(from: 0, to: sound.count, by: channels).map { sound[$0] }
                state.decoded += sound.count / channels
                if state.samples.count > Self.window { state.samples.removeFirst(state.samples.count - Self.window) }
            }
        }
    }

    /// Samples (one channel) decoded so far.
    public var decoded: Int { self.state.withLockedValue { $0.decoded } }

    /// The amplitude of the sine at `frequency` Hz in the last second
    /// decoded (0.5 for a half-scale tone; 0 before a whole second).
    public func amplitude(at frequency: Double) -> Double {
        let samples = self.state.withLockedValue { $0.samples }
        guard samples.count == Self.window else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48_000)
        var (previous, beforeThat) = (0.0, 0.0)
        for sample in samples {
            (previous, beforeThat) = (Double(sample) + coefficient * previous - beforeThat, previous)
        }
        let power = previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat
        return 2 * power.squareRoot() / Double(samples.count)
    }

    /// The amplitudes at `frequencies`, for a failure's message.
    public func describe(_ frequencies: [Double]) -> String {
        frequencies.map { "\(Int($0)) Hz \(String(format: "%.3f", self.amplitude(at: $0)))" }.joined(separator: ", ")
    }
}
