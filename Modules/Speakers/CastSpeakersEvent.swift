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
    /// A group's sink was made while no device discovery found matches this
    /// member (a name or id misspelt, a device off): said once, when the
    /// sink is made; the member joins when a device that matches appears.
    case memberNotFound(group: String, member: String)

    /// One line for a log.
    public var description: String {
        switch self {
        case .sinkAdded(let sink, let device): "sink \(sink) added for \(device)"
        case .sinkRemoved(let sink, let device): "sink \(sink) of \(device) removed"
        case .streamStarted(let device, let application): "streaming to \(device) (app \(application))"
        case .streamStopped(let device): "silent for the grace period: stopped streaming to \(device)"
        case .streamEnded(let device, let reason): "the stream to \(device) ended: \(reason)"
        case .streamFailed(let device, let reason): "could not stream to \(device): \(reason)"
        case .memberNotFound(let group, let member):
            "group \(group): no device named \(member) found yet; it joins the group when it appears"
        }
    }
}
