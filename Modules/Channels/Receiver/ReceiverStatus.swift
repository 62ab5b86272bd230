/// What a receiver reports about itself in RECEIVER_STATUS: the running
/// applications and the device volume (Docs/spec/castv2-control.md §4).
public struct ReceiverStatus: Sendable, Hashable {
    /// The running applications; empty when none (or only fields the receiver left out).
    public var applications: [ReceiverApplication]
    /// The device volume.
    public var volume: ReceiverVolume
    /// Whether the receiver is the TV's active input, when it knows.
    public var isActiveInput: Bool?
    /// Whether the TV is in standby, when the receiver knows.
    public var isStandBy: Bool?

    /// Creates a status.
    public init(
        applications: [ReceiverApplication] = [],
        volume: ReceiverVolume = ReceiverVolume(),
        isActiveInput: Bool? = nil,
        isStandBy: Bool? = nil
    ) {
        self.applications = applications
        self.volume = volume
        self.isActiveInput = isActiveInput
        self.isStandBy = isStandBy
    }

    /// Reads the `status` object of RECEIVER_STATUS, tolerating what old
    /// firmware and groups leave out: missing `applications`, entries
    /// without a `transportId`, namespaces as strings. Entries without an
    /// `appId` are skipped.
    public init(json: JSONValue) {
        self.applications = (json["applications"]?.arrayValue ?? []).compactMap(ReceiverApplication.init(json:))
        self.volume = json["volume"].map(ReceiverVolume.init(json:)) ?? ReceiverVolume()
        self.isActiveInput = json["isActiveInput"]?.boolValue
        self.isStandBy = json["isStandBy"]?.boolValue
    }

    /// The running app with receiver-app session id `sessionID`.
    public func application(sessionID: String) -> ReceiverApplication? {
        self.applications.first { $0.sessionID == sessionID }
    }

    /// The running app with id `appID`, not counting idle screens.
    public func runningApplication(appID: String) -> ReceiverApplication? {
        self.applications.first { $0.appID == appID && !$0.isIdleScreen }
    }
}

/// One running application in a ``ReceiverStatus``.
public struct ReceiverApplication: Sendable, Hashable {
    /// The app id, e.g. `CC1AD845`.
    public var appID: String
    /// The receiver-app session id: what a sender rejoins and stops.
    public var sessionID: String?
    /// The destination id for the app's messages; multizone followers have none.
    public var transportID: String?
    /// The app's name.
    public var displayName: String
    /// The namespaces the app speaks.
    public var namespaces: [String]
    /// The app's status line.
    public var statusText: String
    /// Whether this is the idle screen (Backdrop), which counts as no app.
    public var isIdleScreen: Bool
    /// Whether the app was launched from the cloud.
    public var launchedFromCloud: Bool
    /// The icon's URL, if given.
    public var iconURL: String?
    /// The universal app id, if given.
    public var universalAppID: String?
    /// The app type (`WEB`, `ANDROID_TV`), if given.
    public var appType: String?

    /// Creates an application entry.
    public init(
        appID: String,
        sessionID: String? = nil,
        transportID: String? = nil,
        displayName: String = "",
        namespaces: [String] = [],
        statusText: String = "",
        isIdleScreen: Bool = false,
        launchedFromCloud: Bool = false,
        iconURL: String? = nil,
        universalAppID: String? = nil,
        appType: String? = nil
    ) {
        self.appID = appID
        self.sessionID = sessionID
        self.transportID = transportID
        self.displayName = displayName
        self.namespaces = namespaces
        self.statusText = statusText
        self.isIdleScreen = isIdleScreen
        self.launchedFromCloud = launchedFromCloud
        self.iconURL = iconURL
        self.universalAppID = universalAppID
        self.appType = appType
    }

    /// Reads one `applications` entry; `nil` without an `appId`.
    init?(json: JSONValue) {
        guard let appID = json["appId"]?.stringValue else { return nil }
        self.init(
            appID: appID,
            sessionID: json["sessionId"]?.stringValue,
            transportID: json["transportId"]?.stringValue,
            displayName: json["displayName"]?.stringValue ?? "",
            namespaces: (json["namespaces"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["name"]?.stringValue },
            statusText: json["statusText"]?.stringValue ?? "",
            isIdleScreen: json["isIdleScreen"]?.boolValue ?? false,
            launchedFromCloud: json["launchedFromCloud"]?.boolValue ?? false,
            iconURL: json["iconUrl"]?.stringValue,
            universalAppID: json["universalAppId"]?.stringValue,
            appType: json["appType"]?.stringValue
        )
    }

    /// Whether the app speaks `namespace`.
    public func supports(namespace: String) -> Bool {
        self.namespaces.contains(namespace)
    }
}

/// A receiver's (or a group member's) volume.
public struct ReceiverVolume: Sendable, Hashable {
    /// How the volume can be controlled.
    public enum ControlType: Sendable, Hashable {
        /// The level can be set.
        case attenuation
        /// The level cannot be changed.
        case fixed
        /// The level is the master volume of a group or amplifier.
        case master
        /// A value this implementation does not know.
        case other(String)

        init(rawValue: String) {
            switch rawValue {
            case "attenuation": self = .attenuation
            case "fixed": self = .fixed
            case "master": self = .master
            default: self = .other(rawValue)
            }
        }
    }

    /// The level, 0...1, if reported.
    public var level: Double?
    /// Whether the receiver is muted, if reported.
    public var isMuted: Bool?
    /// How the volume can be controlled, if reported.
    public var controlType: ControlType?
    /// The step the receiver's own buttons change the level by, if reported.
    public var stepInterval: Double?

    /// Creates a volume.
    public init(
        level: Double? = nil, isMuted: Bool? = nil, controlType: ControlType? = nil, stepInterval: Double? = nil
    ) {
        self.level = level
        self.isMuted = isMuted
        self.controlType = controlType
        self.stepInterval = stepInterval
    }

    /// Reads a `volume` object.
    public init(json: JSONValue) {
        self.init(
            level: json["level"]?.doubleValue,
            isMuted: json["muted"]?.boolValue,
            controlType: json["controlType"]?.stringValue.map(ControlType.init(rawValue:)),
            stepInterval: json["stepInterval"]?.doubleValue
        )
    }
}
