/// What a speaker's sink is in the sound server.
enum SpeakerSink: Sendable {
    /// A `module-null-sink` (PulseAudio), this module's index; its monitor is recorded.
    case nullSink(module: UInt32)
    /// A node of PipeWire's own that reports the device's latency; tapped.
    case pipeWireNode(PipeWireSink)

    /// The module that made the sink, if a module did.
    var module: UInt32? {
        if case .nullSink(let module) = self { module } else { nil }
    }
}
