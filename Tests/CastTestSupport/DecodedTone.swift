public import CastEmulator

/// What the emulator's streaming receiver reports of the sound it decoded:
/// how much, and the pitch and level of its last second.
public struct DecodedTone: Sendable {
    private let emulator: CastEmulator

    /// Reads `emulator`'s report.
    public init(from emulator: CastEmulator) {
        self.emulator = emulator
    }

    private var report: StreamReport? { self.emulator.streamingReport?.audio }

    /// How many samples (per channel) were decoded: 480 a 10 ms frame.
    public var count: Int { (self.report?.framesDecoded ?? 0) * 480 }

    /// The frequency of the last second decoded, Hz (0 before any sound).
    public var frequency: Double { self.report?.soundFrequency ?? 0 }

    /// The RMS level of the last second decoded, dBFS (−180 before any sound).
    public var level: Double { self.report?.soundLevel ?? -180 }
}
