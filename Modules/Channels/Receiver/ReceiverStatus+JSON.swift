extension ReceiverStatus {
    /// The status as RECEIVER_STATUS carries it (Docs/spec/castv2-control.md
    /// §4), what ``init(json:)`` reads back: for an app to log, forward or
    /// store, and what `cast status --json` prints. Fields not known are
    /// left out.
    public var json: JSONValue {
        var status: [String: JSONValue] = [
            "applications": .array(self.applications.map(\.json)), "volume": self.volume.json,
        ]
        status["isActiveInput"] = self.isActiveInput.map(JSONValue.bool)
        status["isStandBy"] = self.isStandBy.map(JSONValue.bool)
        return .object(status)
    }

    /// The app running other than the idle screen, if one does.
    public var runningApplication: ReceiverApplication? {
        self.applications.first { !$0.isIdleScreen }
    }
}

extension ReceiverApplication {
    /// The entry as RECEIVER_STATUS's `applications` carry it, namespaces as `{"name": …}` objects.
    public var json: JSONValue {
        var application: [String: JSONValue] = [
            "appId": .string(self.appID), "displayName": .string(self.displayName),
            "namespaces": .array(self.namespaces.map { ["name": .string($0)] }),
            "statusText": .string(self.statusText), "isIdleScreen": .bool(self.isIdleScreen),
            "launchedFromCloud": .bool(self.launchedFromCloud),
        ]
        application["sessionId"] = self.sessionID.map(JSONValue.string)
        application["transportId"] = self.transportID.map(JSONValue.string)
        application["iconUrl"] = self.iconURL.map(JSONValue.string)
        application["universalAppId"] = self.universalAppID.map(JSONValue.string)
        application["appType"] = self.appType.map(JSONValue.string)
        return .object(application)
    }
}

extension ReceiverVolume {
    /// The volume as a `volume` object carries it.
    public var json: JSONValue {
        var volume: [String: JSONValue] = [:]
        volume["level"] = self.level.map(JSONValue.number)
        volume["muted"] = self.isMuted.map(JSONValue.bool)
        volume["controlType"] = self.controlType.map { .string($0.rawValue) }
        volume["stepInterval"] = self.stepInterval.map(JSONValue.number)
        return .object(volume)
    }
}

extension ReceiverVolume.ControlType {
    /// The name the receiver uses: `attenuation`, `fixed`, `master`, or the unknown one it sent.
    public var rawValue: String {
        switch self {
        case .attenuation: "attenuation"
        case .fixed: "fixed"
        case .master: "master"
        case .other(let name): name
        }
    }
}
