public import CastChannels
import CastMedia

extension DeviceWatch.Event {
    /// The event as one JSON object, what `cast watch` prints a line of (with
    /// the time): `event` names it — `receiver.status`, `receiver.volume`,
    /// `receiver.launch`, `app.started`, `app.stopped`, `media.metadata`,
    /// `media.status`, `media.queue`, `media.unreachable` or `disconnected` —
    /// and the rest says what, statuses, volumes and apps in the receiver's
    /// own shapes: for a bridge (MQTT, a home hub) or a log.
    public var json: JSONValue {
        let (name, fields) = self.fields
        return .object(fields.merging(["event": .string(name)]) { $1 })
    }

    private var fields: (String, [String: JSONValue]) {
        switch self {
        case .receiver(.statusChanged(let status)): ("receiver.status", ["status": status.json])
        case .receiver(.volumeChanged(let volume)): ("receiver.volume", volume.json.objectValue ?? [:])
        case .receiver(.launchStatusChanged(let launch)): ("receiver.launch", ["status": .string("\(launch)")])
        case .applicationStarted(let app): ("app.started", app.json.objectValue ?? [:])
        case .applicationStopped(let app): ("app.stopped", app.json.objectValue ?? [:])
        case .media(.metadataChanged(let media)):
            (
                "media.metadata",
                [
                    "contentId": media.map { .string($0.contentID) } ?? .null,
                    "title": media?.metadata?.string(forKey: .title).map(JSONValue.string) ?? .null,
                ]
            )
        case .media(.statusChanged(let status)): ("media.status", ["status": status?.json ?? .null])
        case .media(.queueChanged(let change)):
            (
                "media.queue",
                ["changeType": .string(change.changeType), "itemIds": .array(change.itemIDs.map(JSONValue.integer))]
            )
        case .mediaUnreachable(let app, let error):
            ("media.unreachable", ["appId": .string(app.appID), "error": .string(error.userMessage)])
        case .disconnected(let reason): ("disconnected", ["reason": .string("\(reason.code)")])
        }
    }
}
