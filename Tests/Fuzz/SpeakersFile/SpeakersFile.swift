import CastSpeakers

/// What `cast speakers` reads that others write: its settings file (the
/// user's, read again at each SIGHUP), and for a sink's owner the module
/// argument the sound server lists and the `/proc/<pid>/stat` line the
/// kernel gives (its command is any name a process takes). The first byte
/// picks the parser; the rest is its input.
func fuzzSpeakersFile(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    switch selector % 3 {
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
    default:
        _ = SinkOwner.startTime(fromStat: text)
    }
}
