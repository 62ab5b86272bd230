import Foundation
import Testing

@testable import CastEmulator

/// The emulator's sound meter: the pitch and level of the last second only.
@Suite(.timeLimit(.minutes(3))) struct SoundMeterTests {
    static func sine(_ frequency: Double, amplitude: Float, seconds: Double, channels: Int) -> [Float] {
        (0..<Int(seconds * 48_000)).flatMap { index in
            [Float](
                repeating: amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / 48_000)), count: channels)
        }
    }

    @Test func aSineIsMeasuredAtItsPitchAndLevel() {
        var meter = SoundMeter()
        #expect(meter.level == nil && meter.frequency == nil)
        meter.add(Self.sine(1_000, amplitude: 0.5, seconds: 0.5, channels: 2), channels: 2)
        #expect(abs((meter.frequency ?? 0) - 1_000) < 5)
        #expect(abs((meter.level ?? 0) - -9.03) < 0.05)
    }

    /// Three seconds in: only the last second counts, and memory stays one second.
    @Test func onlyTheLastSecondCounts() {
        var meter = SoundMeter()
        meter.add(Self.sine(440, amplitude: 1, seconds: 2, channels: 1), channels: 1)
        for _ in 0..<100 { meter.add(Self.sine(1_000, amplitude: 0.25, seconds: 0.01, channels: 1), channels: 1) }
        #expect(abs((meter.frequency ?? 0) - 1_000) < 5, "\(String(describing: meter.frequency))")
        #expect(abs((meter.level ?? 0) - -15.05) < 0.05, "\(String(describing: meter.level))")
        meter.add([], channels: 2)
        meter.add([0.5], channels: 0)
        #expect(abs((meter.level ?? 0) - -15.05) < 0.05)
    }
}
