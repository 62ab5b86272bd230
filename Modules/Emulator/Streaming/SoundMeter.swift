import Foundation

/// The pitch and level of the last second of decoded sound (its first
/// channel), as a speaker's test would measure them: bounded to one second
/// of samples whatever the session's length.
///
/// An instrument, not a receiver behaviour: no receiver reports this, and
/// nothing on the wire changes. It listens where a receiver plays: Open
/// Screen's standalone receiver decodes each audio frame and hands the
/// samples to its audio device (cast/standalone_receiver/sdl_audio_player.h,
/// "consumes frames from a Receiver, decodes them, and renders them"); the
/// meter takes the same decoded samples, so a test need not keep them all
/// to check a tone.
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

    /// Sample `offset` of the window, oldest first (`offset` < `filled`).
    private func sample(_ offset: Int) -> Float {
        let oldest = self.filled == Self.window ? self.next : 0
        return self.samples[(oldest + offset) % Self.window]
    }

    /// The RMS level, dBFS (a half-scale sine is −9.03); nil before any sound.
    var level: Double? {
        guard self.filled > 0 else { return nil }
        let power = (0..<self.filled).reduce(0) { $0 + Double(self.sample($1)) * Double(self.sample($1)) }
        return 20 * log10(max((power / Double(self.filled)).squareRoot(), 1e-9))
    }

    /// The frequency from the zero crossings, Hz; nil before any sound.
    var frequency: Double? {
        guard self.filled > 1 else { return nil }
        let crossings = (1..<self.filled).count { (self.sample($0 - 1) < 0) != (self.sample($0) < 0) }
        return Double(crossings) / 2 * Double(Self.window) / Double(self.filled)
    }
}
