import CastSpeakers

/// What `cast speakers` reads that others write: its settings file (the
/// user's, read again at each SIGHUP), and for a sink's owner the module
/// argument the sound server lists and the `/proc/<pid>/stat` line the
/// kernel gives (its command is any name a process takes); and the sound
/// server's address and name, which say where PipeWire's socket is. The
/// first byte picks the parser; the rest is its input.
func fuzzSpeakersFile(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    switch selector % 4 {
    case 0:
        guard let file = try? CastSpeakersFile(parsing: text) else { return }
        precondition(file.groups.allSatisfy { !$0.name.isEmpty && !$0.members.isEmpty })
        if let grace = file.gracePeriod { precondition(grace >= .seconds(1) && grace <= .seconds(3_600)) }
        if let bitrate = file.bitrate { precondition((6_000...510_000).contains(bitrate)) }
        if let delay = file.targetDelay { precondition(delay >= .milliseconds(1) && delay <= .seconds(5)) }
    case 1:
        if let owner = SinkOwner(moduleArgument: text) {
            precondition(owner.pid > 0)
            // What is written reads back the same.
            precondition(SinkOwner(moduleArgument: "cast.owner='\(owner)'") == owner)
        }
    case 2:
        _ = SinkOwner.startTime(fromStat: text)
    default:
        // Only a PipeWire server has a PipeWire socket, and only a local one.
        precondition(PipeWireRemote.behind(serverName: "pulseaudio", address: text) == nil)
        if let remote = PipeWireRemote.behind(serverName: "PulseAudio (on PipeWire 0.3.65)", address: text),
            let socket = remote.socket
        {
            precondition(socket.hasSuffix("/pipewire-0") && !text.hasPrefix("tcp:"))
        }
    }
}
