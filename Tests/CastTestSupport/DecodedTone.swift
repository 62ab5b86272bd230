public import CastEmulator
import Foundation
import NIOConcurrencyHelpers

/// The first channel of the sound the emulator's streaming receiver
/// decoded (up to `limit` samples), and the pitch and level of its tail.
public final class DecodedTone: Sendable {
    private let samples = NIOLockedValueBox([Float]())
    private let limit: Int

    /// Collects what `emulator` decodes from now on.
    public init(from emulator: CastEmulator, limit: Int = 48_000 * 10) {
        self.limit = limit
        emulator.streaming.observer.sound = { [samples] _, decoded, channels in
            samples.withLockedValue { samples in
                guard samples.count < limit else { return }
                for index in stride(from: 0, to: decoded.count, by: channels) { samples.append(decoded[index]) }
            }
        }
    }

    /// How many samples (of the first channel) were decoded.
    public var count: Int { self.samples.withLockedValue { $0.count } }

    /// The last `seconds` of what was decoded at 48 kHz.
    public func last(_ seconds: Double) -> [Float] {
        self.samples.withLockedValue { Array($0.suffix(Int(seconds * 48_000))) }
    }

    /// The frequency of the last second, Hz, from its zero crossings.
    public var frequency: Double {
        let last = self.last(1)
        var crossings = 0
        for index in last.indices.dropFirst() where (last[index - 1] < 0) != (last[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 * 48_000 / Double(max(last.count, 1))
    }

    /// The RMS level of the last second, dBFS (a 0.5 sine is −9.03).
    public var level: Double {
        let last = self.last(1)
        let rms = (last.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(last.count, 1))).squareRoot()
        return 20 * log10(max(rms, 1e-9))
    }
}
