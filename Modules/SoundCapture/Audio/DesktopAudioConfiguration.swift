/// Where a ``DesktopAudioCapture`` records from.
public struct DesktopAudioConfiguration: Sendable, Hashable {
    /// The sound server, e.g. `unix:/run/user/1000/pulse/native`; `nil`
    /// uses the default (`PULSE_SERVER`, then the user's server).
    public var server: String?
    /// The source to record, e.g. `alsa_output.pci-0000_00_1f.3.analog-stereo.monitor`;
    /// `nil` records the default sink's monitor: what the desktop plays.
    public var device: String?
    /// One application whose sound alone is recorded, by its
    /// `application.name` or process name (letter case aside: `firefox`,
    /// `mpv`): every stream it plays, mixed as its sink mixes them (two
    /// browser tabs are both heard), those it opens later joining the mix;
    /// `device` is then not used. `nil` (the default) records `device`.
    public var application: String?
    /// How much sound each read returns: the capture's share of the
    /// latency. 5…100 ms; default 10 ms.
    public var chunkDuration: Duration

    /// Creates a configuration.
    public init(
        server: String? = nil, device: String? = nil, application: String? = nil,
        chunkDuration: Duration = .milliseconds(10)
    ) {
        self.server = server
        self.device = device
        self.application = application
        self.chunkDuration = chunkDuration
    }

    /// What a user names as the sound to record: a source's name, or
    /// `app:NAME` for one application's sound (``application``); `nil` for
    /// what the desktop plays.
    public init(server: String?, source: String?) {
        if let source, source.lowercased().hasPrefix("app:"), source.count > 4 {
            self.init(server: server, application: String(source.dropFirst(4)))
        } else {
            self.init(server: server, device: source)
        }
    }

    /// Frames per read at 48 kHz.
    func chunkFrames() throws(CaptureError) -> Int {
        guard self.chunkDuration >= .milliseconds(5), self.chunkDuration <= .milliseconds(100) else {
            throw CaptureError(.invalidConfiguration, "audio chunks of \(self.chunkDuration) are outside 5…100 ms")
        }
        return Int(self.chunkDuration / .seconds(1) * Double(DesktopAudioCapture.sampleRate))
    }
}
