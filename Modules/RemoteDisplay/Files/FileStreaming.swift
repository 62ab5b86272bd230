public import CastStreaming

/// Files streamed into a `RemoteDisplaySession` in real time: a Y4M's
/// frames (or the ``TestSignal``'s pattern) at the signal's rate, and a
/// WAV's samples through an `AudioInput`, which resamples them to 48 kHz —
/// what `cast screen --video --audio` sends, and a way to check a receiver
/// with known pictures and sound.
///
/// ```swift
/// let signal = try TestSignal(width: video.width, height: video.height, frameRate: 30, start: .now)
/// try await FileStreaming(signal: signal, video: video, sound: sound).stream(seconds: 10, to: session)
/// ```
public struct FileStreaming {
    /// The clock and, without a video, the pictures.
    public let signal: TestSignal
    /// The pictures, in place of the signal's pattern.
    public let video: Y4MFile?
    /// The sound, sent when the session has audio.
    public let sound: WAVFile?

    /// Streams `video` (else `signal`'s pattern) and `sound` at `signal`'s rate.
    public init(signal: TestSignal, video: Y4MFile?, sound: WAVFile?) {
        self.signal = signal
        self.video = video
        self.sound = sound
    }

    /// Streams into `session` until `seconds` pass or the video ends;
    /// `tick` is called after each frame with its index.
    ///
    /// - Throws: the session's `CastRemoteDisplayError`, a Y4M frame that
    ///   cannot be read, or `CancellationError`.
    public func stream(
        seconds: Double, to session: RemoteDisplaySession, tick: (Int) -> Void = { _ in }
    ) async throws {
        var input = try self.sound.flatMap { sound in
            session.configuration.audio == nil
                ? nil
                : try session.makeAudioInput(
                    sourceSampleRate: sound.sampleRate, sourceChannelCount: sound.channelCount)
        }
        var samplesSent = 0
        for index in 0..<Int(seconds * Double(self.signal.frameRate)) {
            let pts = self.signal.pts(ofFrame: index)
            let wait = HostTime.now.duration(to: pts)
            if wait > .zero { try await Task.sleep(for: wait) }
            if let video = self.video {
                if var buffer = session.createPixelBuffer() {
                    guard try video.readFrame(into: &buffer) else { break }
                    _ = try session.enqueueVideoFrame(buffer, pts: pts)
                }
            } else if let frame = try self.signal.makeFrame(index, for: session) {
                _ = try session.enqueueVideoFrame(frame, pts: pts)
            }
            if let sound = self.sound, input != nil {
                let channels = sound.channelCount
                let due = min(
                    (index + 1) * sound.sampleRate / self.signal.frameRate * channels,
                    sound.samples.count / channels * channels)
                if due > samplesSent {
                    let first = samplesSent / channels
                    let start = self.signal.start.advanced(
                        by: .nanoseconds(Int64(first) * 1_000_000_000 / Int64(sound.sampleRate)))
                    _ = try input!.enqueue(interleaved: Array(sound.samples[samplesSent..<due]), pts: start)
                    session.audioWasQueued()
                    samplesSent = due
                }
            }
            tick(index)
        }
    }
}
