/// What a ``DesktopAudioCapture`` recorded so far.
public struct DesktopAudioStatistics: Sendable, Hashable {
    /// Sample frames (48 kHz) recorded and queued.
    public var framesCaptured = 0
    /// How old the last chunk was when it was read, beyond its own length,
    /// as the sound server reported it: what each chunk's time stamp is
    /// moved back by.
    public var recordingLatency: Duration = .zero

    /// Creates statistics.
    public init() {}
}
