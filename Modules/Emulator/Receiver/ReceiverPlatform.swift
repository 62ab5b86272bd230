import CastChannels
import Foundation

/// The receiver platform's state and rules, as a value with no I/O: the
/// app registry, the running app, the device volume and the multizone
/// group (Docs/spec/castv2-control.md §4). The hub applies requests here
/// under its lock and does the sending.
struct ReceiverPlatform {
    /// What a request did: the replies for its sender, in order, and what
    /// the others must hear.
    struct Outcome {
        /// Who hears the broadcasts, and when.
        enum BroadcastTiming {
            /// After the replies, every other sender (the requester has its reply).
            case afterRepliesToOthers
            /// Before the replies, every sender (Open Screen application_agent.cc:376 then :183-190).
            case beforeRepliesToEveryone
            /// After the replies, every sender (a Nest Hub, conformance 029).
            case afterRepliesToEveryone
        }

        var replies: [JSONValue] = []
        var broadcasts: [JSONValue] = []
        var broadcastTiming = BroadcastTiming.afterRepliesToOthers
        var stoppedTransports: [String] = []
    }

    let profile: ReceiverProfile
    private(set) var applications: [String: EmulatedApplication]
    private(set) var running: EmulatedAppSession?
    private(set) var volumeLevel = 1.0
    private(set) var isMuted = false
    private(set) var groupMembers: [MultizoneDevice] = []
    private(set) var castingGroups: [CastingGroup] = []
    /// The running app's player (the Default Media Receiver's, for any app listing the media namespace).
    var media = MediaPlayer()
    private var nextTransportNumber = 1

    init(profile: ReceiverProfile, applications: [EmulatedApplication]) {
        self.profile = profile
        self.applications = Dictionary(applications.map { ($0.appID, $0) }, uniquingKeysWith: { _, last in last })
        self.showIdleScreen()
    }

    /// Sets the device volume as its remote or buttons would (the level
    /// clamped to 0…1; `nil` keeps a part) and returns the status every
    /// sender is told.
    mutating func setVolume(level: Double?, isMuted: Bool?) -> JSONValue {
        if let level, level.isFinite { self.volumeLevel = min(max(level, 0), 1) }
        if let isMuted { self.isMuted = isMuted }
        return self.statusMessage(requestID: 0)
    }

    /// The running app, unless it is the idle screen.
    var runningApp: EmulatedAppSession? {
        self.running.flatMap { $0.application.isIdleScreen ? nil : $0 }
    }

    // MARK: Receiver namespace

    /// Applies one receiver-namespace request.
    mutating func handleReceiverRequest(_ request: JSONValue, launchFault: LaunchFault) -> Outcome {
        var outcome = Outcome()
        guard let requestID = request["requestId"]?.intValue, requestID > 0 else {
            outcome.replies = [Self.invalidRequest(requestID: 0, reason: "INVALID_PARAMS")]
            return outcome
        }
        switch request["type"]?.stringValue {
        case "GET_STATUS":
            outcome.replies = [self.statusMessage(requestID: requestID)]
        case "LAUNCH":
            self.launch(request, requestID: requestID, fault: launchFault, into: &outcome)
        case "STOP":
            guard let sessionID = request["sessionId"]?.stringValue, let stopped = self.stop(sessionID: sessionID)
            else {
                outcome.replies = [Self.invalidRequest(requestID: requestID, reason: "INVALID_SESSION_ID")]
                return outcome
            }
            outcome.stoppedTransports = [stopped.transportID]
            outcome.broadcasts = [self.statusMessage(requestID: 0)]
            switch self.profile.stopReply {
            case .replyAndBroadcast:
                outcome.replies = [self.statusMessage(requestID: requestID)]
            case .broadcastOnly:
                outcome.broadcastTiming = .beforeRepliesToEveryone
            }
        case "SET_VOLUME" where self.profile.supportsVolume:
            let volume = request["volume"]?.objectValue ?? [:]
            switch (volume["level"]?.doubleValue, volume["muted"]?.boolValue, volume.count) {
            case (let level?, nil, 1) where level.isFinite:
                self.volumeLevel = min(max(level, 0), 1)
            case (nil, let muted?, 1):
                self.isMuted = muted
            default:
                outcome.replies = [Self.invalidRequest(requestID: requestID, reason: "INVALID_PARAMS")]
                return outcome
            }
            outcome.replies = [self.statusMessage(requestID: requestID)]
            outcome.broadcasts = [self.statusMessage(requestID: 0)]
        case "GET_APP_AVAILABILITY":
            let ids =
                request["appId"]?.arrayValue?.compactMap(\.stringValue) ?? request["appId"]?.stringValue.map { [$0] }
            var availability: [String: JSONValue] = [:]
            for id in ids ?? [] {
                availability[id] = self.applications[id] == nil ? "APP_UNAVAILABLE" : "APP_AVAILABLE"
            }
            outcome.replies = [
                [
                    "responseType": "GET_APP_AVAILABILITY", "requestId": .integer(requestID),
                    "availability": .object(availability),
                ]
            ]
        default:
            outcome.replies = [Self.invalidRequest(requestID: requestID, reason: "INVALID_COMMAND")]
        }
        return outcome
    }

    private mutating func launch(_ request: JSONValue, requestID: Int, fault: LaunchFault, into outcome: inout Outcome)
    {
        guard let appID = request["appId"]?.stringValue, !appID.isEmpty else {
            outcome.replies = [Self.launchError(requestID: requestID, reason: "BAD_PARAMETER")]
            return
        }
        switch fault {
        case .none:
            break
        case .error(let reason, let extendedError):
            outcome.replies = [Self.launchError(requestID: requestID, reason: reason, extendedError: extendedError)]
            return
        case .noReply:
            return
        case .requiresAuthorization:
            // Keyed by `launchRequestId`, as Open Screen (application_agent.cc:285-288)
            // and the Nest Hub (conformance 029) send it.
            outcome.replies = ["USER_PENDING_AUTHORIZATION"].map { status in
                ["type": "LAUNCH_STATUS", "launchRequestId": .integer(requestID), "status": .string(status)]
            }
        }
        guard let application = self.applications[appID] else {
            outcome.replies = [Self.launchError(requestID: requestID, reason: "NOT_FOUND")]
            return
        }
        if let replaced = self.start(application) {
            outcome.stoppedTransports = [replaced.transportID]
        }
        outcome.broadcasts = [self.statusMessage(requestID: 0)]
        let allowed: JSONValue = [
            "type": "LAUNCH_STATUS", "launchRequestId": .integer(requestID), "status": "USER_ALLOWED",
        ]
        switch self.profile.launchReply {
        case .receiverStatus:
            if fault == .requiresAuthorization { outcome.replies.append(allowed) }
            outcome.replies.append(self.statusMessage(requestID: requestID))
        case .launchStatusThenReceiverStatus:
            outcome.replies += [allowed, self.statusMessage(requestID: requestID)]
            outcome.broadcastTiming = .beforeRepliesToEveryone
        case .launchStatusThenBroadcast:
            outcome.replies.append(allowed)
            outcome.broadcastTiming = .afterRepliesToEveryone
        }
    }

    // MARK: Multizone namespace

    /// Applies one multizone-namespace request.
    func handleMultizoneRequest(_ request: JSONValue) -> Outcome {
        var outcome = Outcome()
        let requestID = request["requestId"]?.intValue ?? 0
        switch request["type"]?.stringValue {
        case "GET_STATUS":
            outcome.replies = [
                [
                    "type": "MULTIZONE_STATUS", "requestId": .integer(requestID),
                    "status": ["devices": .array(self.groupMembers.map(Self.json)), "isMultichannel": false],
                ]
            ]
        case "GET_CASTING_GROUPS":
            let groups = self.castingGroups.map { group -> JSONValue in
                ["uuid": .string(group.id), "name": .string(group.name)]
            }
            outcome.replies = [
                ["type": "CASTING_GROUPS", "requestId": .integer(requestID), "status": ["groups": .array(groups)]]
            ]
        default:
            outcome.replies = [Self.invalidRequest(requestID: requestID, reason: "INVALID_COMMAND")]
        }
        return outcome
    }

    /// Adds or updates a group member; returns the broadcast to send.
    mutating func upsertGroupMember(_ device: MultizoneDevice) -> JSONValue {
        if let index = self.groupMembers.firstIndex(where: { $0.id == device.id }) {
            self.groupMembers[index] = device
            return ["type": "DEVICE_UPDATED", "requestId": 0, "device": Self.json(device)]
        }
        self.groupMembers.append(device)
        return ["type": "DEVICE_ADDED", "requestId": 0, "device": Self.json(device)]
    }

    /// Removes a group member; returns the broadcast to send, or `nil` if it was not a member.
    mutating func removeGroupMember(id: String) -> JSONValue? {
        guard self.groupMembers.contains(where: { $0.id == id }) else { return nil }
        self.groupMembers.removeAll { $0.id == id }
        return ["type": "DEVICE_REMOVED", "requestId": 0, "deviceId": .string(id)]
    }

    /// Replaces the casting groups.
    mutating func setCastingGroups(_ groups: [CastingGroup]) {
        self.castingGroups = groups
    }

    // MARK: Apps

    /// Starts `application` in a new session (or with `sessionID`, for a
    /// moved session); returns the app it replaced, if one ran.
    @discardableResult
    mutating func start(_ application: EmulatedApplication, sessionID: String? = nil) -> EmulatedAppSession? {
        let replaced = self.runningApp
        self.media = MediaPlayer()
        self.running = EmulatedAppSession(
            application: application,
            sessionID: sessionID ?? UUID().uuidString,
            transportID: "web-\(self.nextTransportNumber)"
        )
        self.nextTransportNumber += 1
        return replaced
    }

    /// Stops the app session `sessionID` (any running session when `nil`);
    /// returns it, or `nil` if no such session runs. The idle screen shows.
    mutating func stop(sessionID: String? = nil) -> EmulatedAppSession? {
        guard let running = self.runningApp, sessionID == nil || running.sessionID == sessionID else { return nil }
        self.showIdleScreen()
        return running
    }

    /// The transport of the running app if it plays media.
    var mediaTransportID: String? {
        self.runningApp.flatMap { $0.application.namespaces.contains(CastNamespace.media) ? $0.transportID : nil }
    }

    private mutating func showIdleScreen() {
        self.running = nil
        if let idle = self.applications.values.sorted(by: { $0.appID < $1.appID }).first(where: \.isIdleScreen) {
            self.start(idle)
        }
    }

    // MARK: Messages

    /// RECEIVER_STATUS as the profile's receiver sends it: the running app
    /// (the idle screen only where the profile lists it; newer devices
    /// leave `applications` out when idle, conformance 011 and 017), the
    /// profile's volume model and an empty `userEq` (Open Screen
    /// application_agent.cc:389-428; conformance 011).
    func statusMessage(requestID: Int) -> JSONValue {
        let listed = self.profile.listsIdleScreen ? self.running : self.runningApp
        let applications: [JSONValue] =
            listed.map { session in
                [
                    [
                        "appId": .string(session.application.appID),
                        "universalAppId": .string(session.application.appID),
                        "displayName": .string(session.application.displayName),
                        "isIdleScreen": .bool(session.application.isIdleScreen),
                        "launchedFromCloud": false,
                        "namespaces": .array(session.application.namespaces.map { ["name": .string($0)] }),
                        "sessionId": .string(session.sessionID),
                        "statusText": .string(session.application.displayName),
                        "transportId": .string(session.transportID),
                        "appType": "WEB",
                    ]
                ]
            } ?? []
        var status: [String: JSONValue] = [
            "userEq": [:],
            "volume": [
                "controlType": .string(self.profile.volume.controlType), "level": .number(self.volumeLevel),
                "muted": .bool(self.isMuted), "stepInterval": .number(self.profile.volume.stepInterval),
            ],
        ]
        if !applications.isEmpty { status["applications"] = .array(applications) }
        return ["type": "RECEIVER_STATUS", "requestId": .integer(requestID), "status": .object(status)]
    }

    private static func invalidRequest(requestID: Int, reason: String) -> JSONValue {
        ["type": "INVALID_REQUEST", "requestId": .integer(requestID), "reason": .string(reason)]
    }

    private static func launchError(requestID: Int, reason: String, extendedError: String? = nil) -> JSONValue {
        var message: [String: JSONValue] = [
            "type": "LAUNCH_ERROR", "requestId": .integer(requestID), "reason": .string(reason),
        ]
        if let extendedError { message["extendedError"] = .string(extendedError) }
        return .object(message)
    }

    private static func json(_ device: MultizoneDevice) -> JSONValue {
        var member: [String: JSONValue] = ["deviceId": .string(device.id), "name": .string(device.name)]
        if let capabilities = device.capabilities { member["capabilities"] = .integer(capabilities) }
        if let volume = device.volume {
            member["volume"] = ["level": .number(volume.level ?? 1), "muted": .bool(volume.isMuted ?? false)]
        }
        return .object(member)
    }
}
