/// A sink of the sound server (an output apps play into), as the server
/// reports it.
struct SoundServerSink: Sendable, Hashable {
    /// The sink's name, e.g. `cast.kitchen-speaker-1a2b`.
    var name: String
    /// The server's index of the sink.
    var index: UInt32
    /// What the desktop's sound settings show.
    var description: String
    /// Whether an app is playing into the sink now: one of its inputs (an
    /// app's stream) is connected and not paused (corked). Not the sink's
    /// state, which PipeWire keeps RUNNING while the monitor is recorded.
    var isPlaying: Bool
    /// The sink's volume, 0…1 at 100 % (the average of its channels; above 1 when amplified).
    var volume: Double
    /// Whether the sink is muted.
    var isMuted: Bool
    /// The factor the volume scales samples by (`pa_sw_volume_to_linear`: the cube of ``volume``).
    var amplitude: Double
    /// The index of the module that made the sink, if a module did.
    var module: UInt32?

    /// Creates a sink description.
    init(
        name: String, index: UInt32, description: String, isPlaying: Bool, volume: Double, isMuted: Bool,
        amplitude: Double, module: UInt32? = nil
    ) {
        self.name = name
        self.index = index
        self.description = description
        self.isPlaying = isPlaying
        self.volume = volume
        self.isMuted = isMuted
        self.amplitude = amplitude
        self.module = module
    }

    /// The source that records what reaches the sink.
    var monitorName: String { "\(self.name).monitor" }
}
