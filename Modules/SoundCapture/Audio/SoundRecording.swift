package import CastStreaming

/// Where a ``DesktopAudioCapture`` reads its sound from: a libpulse
/// recording of a source (the default), or another recording of the
/// package's own, such as a PipeWire sink node of CastSpeakers that hands
/// over what applications play into it.
///
/// Read on the capture's own thread, one chunk at a time; ``interrupt()``
/// may be called from any thread.
package protocol SoundRecording: Sendable {
    /// Fills `bytes` with the next sound, 48 kHz stereo interleaved
    /// `Float`, blocking until it is there; returns the host time its first
    /// sample was captured.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/sourceVanished`` when the
    ///   recording ended (its source went away, or ``interrupt()``).
    func read(into bytes: UnsafeMutableRawBufferPointer) throws(CaptureError) -> HostTime

    /// How long before the last read its sound was captured, beyond its own length.
    var latency: Duration { get }

    /// Makes a read that waits, and every later one, end at once.
    func interrupt()
}
