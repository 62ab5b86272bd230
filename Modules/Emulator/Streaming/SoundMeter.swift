import Foundation

/// The pitch and level of the last second of decoded sound (its first
/// channel), as a speaker's test would measure them: bounded to one second
/// of samples whatever the session's length.
///
/// An instrument, not a receiver behaviour: no receiver reports this, and
/// nothing on the wire changes. It is the test's microphone on the decoded
/// output, so a test need not keep every sample to check a tone.
struct SoundMeter {
    /// One second at Opus's 48 kHz.
    static let window = 48_000
    private var samples = [Float](repeating: 0, count: SoundMeter.window)
    private var next = 0
    private var filled = 0

    /// Adds decoded `sound` (`channels` interleaved); keeps the first channel.
    mutating func add(_ sound: [Float], channels: Int) {
        guard channels > 0 else { return }
        for index in stride(from: 0, to: sound.count, by: channels) {
            self.samples[self.next] = sound[index]
            self.next = (self.next + 1) % Self.window
        }
        self.filled = min(self.filled + sound.count / channels, Self.window)
    }

    /// The window's samples, oldest first.
    private var ordered: ArraySlice<Float> {
        guard self.filled == Self.window else { return self.samples[0..<self.filled] }
        return ArraySlice(self.samples[self.next...] + self.samples[..<self.next])
    }

    /// The RMS level, dBFS (a half-scale sine is −9.03); nil before any sound.
    var level: Double? {
        let window = self.ordered
        guard !window.isEmpty else { return nil }
        let power = window.reduce(0) { $0 + Double($1) * Double($1) } / Double(window.count)
        return 20 * log10(max(power.squareRoot(), 1e-9))
    }

    /// The frequency from the zero crossings, Hz; nil before any sound.
    var frequency: Double? {
        let window = self.ordered
        guard window.count > 1 else { return nil }
        var crossings = 0
        var previous = window[window.startIndex]
        for sample in window.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / 2 * 48_000 / Double(window.count)
    }
}
