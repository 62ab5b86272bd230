/// What ``CastSpeakers`` did, for a log or a user interface.
public enum CastSpeakersEvent: Sendable, Hashable, CustomStringConvertible {
    /// A sink for the device appeared in the sound server.
    case sinkAdded(sink: String, device: String)
    /// The device's sink was removed (the device went away, or the speakers stopped).
    case sinkRemoved(sink: String, device: String)
    /// Sound reached the sink, and its stream to the device began on this app.
    case streamStarted(device: String, application: String)
    /// The sink was silent for the grace period; the stream ended.
    case streamStopped(device: String)
    /// The stream ended by itself (the device or another sender stopped the
    /// app, the connection dropped); while sound still reaches the sink, it
    /// starts again.
    case streamEnded(device: String, reason: String)
    /// A stream could not start; it is tried again while sound reaches the sink.
    case streamFailed(device: String, reason: String)
    /// No device discovery found matches this member of a group (a name or
    /// id misspelt, a device off): said once, ten seconds after the group's
    /// sink was made; the member joins when a device that matches appears.
    case memberNotFound(group: String, member: String)
    /// A group's members were given new target delays so that they play in
    /// step: each member's, by name. A member on a shorter link waits that
    /// much longer (half the difference of the round trips), so the
    /// differences are what the links' lengths are measured to differ by.
    case groupAligned(group: String, delays: [String: Duration])

    /// One line for a log.
    public var description: String {
        switch self {
        case .sinkAdded(let sink, let device): "sink \(sink) added for \(device)"
        case .sinkRemoved(let sink, let device): "sink \(sink) of \(device) removed"
        case .streamStarted(let device, let application): "streaming to \(device) (app \(application))"
        case .streamStopped(let device): "silent for the grace period: stopped streaming to \(device)"
        case .streamEnded(let device, let reason): "the stream to \(device) ended: \(reason)"
        case .streamFailed(let device, let reason): "could not stream to \(device): \(reason)"
        case .groupAligned(let group, let delays):
            "group \(group) in step: "
                + delays.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.milliseconds($0.value))" }
                .joined(separator: ", ")
        case .memberNotFound(let group, let member):
            "group \(group): no device named \(member) found yet; it joins the group when it appears"
        }
    }

    /// `duration` as "417.5 ms".
    private static func milliseconds(_ duration: Duration) -> String {
        "\((duration / .milliseconds(1) * 10).rounded() / 10) ms"
    }
}
