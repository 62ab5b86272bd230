/// The encoders, touched by one thread at a time once the pipeline starts.
//
// @unchecked Sendable: the video encoder (an `any VideoFrameEncoding`, a
// class whose methods must run on one thread at a time) and `AudioEncoder`
// (a noncopyable value with `mutating` methods) are not thread-safe. This box
// is created on the session's thread and from then on used only by the
// pipeline's encoder thread (`encodeVideo`, `encodeAudio`) or, audio alone,
// by the app's threads inside the pipeline's `caller` lock, one call at a
// time, so the encoders are never touched concurrently.
final class EncoderState: @unchecked Sendable {
    private var video: (any VideoFrameEncoding)?
    private var audio: AudioEncoder?
    /// For a frame rate lowered by adaptation: when the next frame is due.
    private var nextFrameDue: HostTime?
    private let frameInterval: Duration

    init(
        configuration: RemoteDisplayConfiguration, letterbox: VideoLetterbox?, hasVideo: Bool,
        audioQueue: AudioFrameQueue?, videoEncoders: VideoEncoders
    ) throws(CastRemoteDisplayError) {
        self.frameInterval = .seconds(1) / configuration.maximumFrameRate
        if hasVideo {
            self.video = try videoEncoders.makeEncoder(configuration: configuration, letterbox: letterbox)
        }
        if let audioQueue, let audio = configuration.audio {
            self.audio = try AudioEncoder(queue: audioQueue, bitrate: audio.bitrate)
        }
    }

    /// Whether a frame captured at `pts` is due at `frameRate` (frames
    /// come at up to the negotiated rate; a lowered rate keeps every n-th,
    /// with 60 % of a frame interval of slack for capture jitter).
    func isDue(_ pts: HostTime, frameRate: Int) -> Bool {
        let interval = Duration.seconds(1) / frameRate
        guard interval > self.frameInterval else {
            self.nextFrameDue = nil
            return true
        }
        let slack = self.frameInterval * 0.6
        if let due = self.nextFrameDue, pts < due.advanced(by: .zero - slack) { return false }
        let next = pts.advanced(by: interval - slack)
        self.nextFrameDue = self.nextFrameDue.map { max($0.advanced(by: interval), next) } ?? next
        return true
    }

    /// Encodes one frame at `bitrate` and `size` (`nil`: the full size),
    /// as a key frame if asked; `nil` without a video stream.
    func encodeVideo(
        _ frame: consuming PixelBuffer, pts: HostTime, keyFrame: Bool, bitrate: Int?,
        size: RemoteDisplayConfiguration.Resolution?
    ) throws(CastRemoteDisplayError) -> EncodedFrame? {
        guard let video = self.video else { return nil }
        return try video.encode(frame, pts: pts, keyFrame: keyFrame, bitrate: bitrate, size: size)
    }

    /// The next 10 ms of audio, or `nil` while less is queued (or without audio).
    func encodeAudio() throws(CastRemoteDisplayError) -> EncodedFrame? {
        guard self.audio != nil else { return nil }
        return try self.audio!.encodeNextFrame()
    }
}
