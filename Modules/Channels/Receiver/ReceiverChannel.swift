import CastCommon
import CastTransport
import NIOConcurrencyHelpers

/// The receiver's platform channel (`urn:x-cast:com.google.cast.receiver`
/// to `receiver-0`, Docs/spec/castv2-control.md §4): launch and stop apps,
/// device volume, app availability, and the receiver's status — kept up to
/// date from every RECEIVER_STATUS, whether it answers this sender's
/// request or reports another sender's change.
///
/// ```swift
/// let receiver = ReceiverChannel()
/// receiver.attach(to: connection, destinationID: "receiver-0")
/// let app = try await receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
/// try await receiver.setVolume(0.4)
/// ```
public final class ReceiverChannel: CastChannel, @unchecked Sendable {
    // @unchecked Sendable: restated from CastChannel, as Swift requires. Its
    // stored properties are `let`s of Sendable types: three timeouts
    // (Duration), `requests` (RequestTracker, locked inside), `expectations`
    // and `latest` (NIOLockedValueBox: they change only under their locks)
    // and `broadcaster` (EventBroadcaster, locked inside).

    /// How long a request waits for its reply. Default 10 s.
    public let requestTimeout: Duration
    /// How long LAUNCH waits for the app's status. Default 60 s (Chrome's).
    public let launchTimeout: Duration
    /// How long GET_APP_AVAILABILITY waits before answering ``AppAvailability/unknown``. Default 5 s.
    public let availabilityTimeout: Duration

    /// What a pending LAUNCH or STOP waits to see in a RECEIVER_STATUS when
    /// the receiver answers with a broadcast instead of a reply.
    private enum Expectation {
        /// `appID` running in a session other than `replacing`.
        case running(appID: String, replacing: String?)
        /// No app in session `sessionID`.
        case stopped(sessionID: String)

        func isMet(by status: ReceiverStatus) -> Bool {
            switch self {
            case .running(let appID, let replacing):
                guard let application = status.runningApplication(appID: appID) else { return false }
                return application.sessionID != replacing
            case .stopped(let sessionID):
                return !status.applications.contains { $0.sessionID == sessionID }
            }
        }
    }

    private let requests: RequestTracker<ReceiverReply>
    private let expectations = NIOLockedValueBox<[Int: Expectation]>([:])
    private let latest = NIOLockedValueBox<ReceiverStatus?>(nil)
    private let broadcaster = EventBroadcaster<ReceiverEvent>(
        initial: nil, replaysLatest: false, buffering: .bufferingNewest(CastChannel.listenerBufferLimit))

    /// Creates a receiver channel; attach it to `receiver-0`. Its requests
    /// time out on `clock` (tests pass a clock they advance themselves).
    public init(
        requestTimeout: Duration = .seconds(10),
        launchTimeout: Duration = .seconds(60),
        availabilityTimeout: Duration = .seconds(5),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.requests = RequestTracker(clock: clock)
        self.requestTimeout = requestTimeout
        self.launchTimeout = launchTimeout
        self.availabilityTimeout = availabilityTimeout
        super.init(platformNamespace: CastNamespace.receiver)
    }

    /// The latest receiver status, or `nil` before the first.
    public var status: ReceiverStatus? {
        self.latest.withLockedValue { $0 }
    }

    /// Status, volume and launch-progress changes from now on; each call gives a new, independent stream.
    public func events() -> AsyncStream<ReceiverEvent> {
        self.broadcaster.subscribe()
    }

    // MARK: Requests

    /// Asks for the receiver status (GET_STATUS).
    ///
    /// - Throws: a send error, ``CastChannelError/Code/timedOut``,
    ///   ``CastChannelError/Code/disconnected`` or ``CastChannelError/Code/cancelled``.
    @discardableResult
    public func requestStatus() async throws(CastChannelError) -> ReceiverStatus {
        try await self.request(["type": "GET_STATUS"]).status()
    }

    /// Launches `appID` (LAUNCH) and returns it once the receiver lists it.
    /// Unless `options` asks to relaunch, an app that already runs is
    /// returned as it is (the SDK's join).
    ///
    /// The launch ends with the RECEIVER_STATUS that answers it, or with any
    /// RECEIVER_STATUS that shows the app running in a new session: a Nest
    /// Hub answers with LAUNCH_STATUS keyed by `launchRequestId` and then
    /// only a broadcast (conformance 029, 030), and Open Screen broadcasts
    /// before it replies (application_agent.cc:376, :183-190).
    ///
    /// - Parameters:
    ///   - appID: the app to launch.
    ///   - options: the LAUNCH's language, app types and parameters, and whether to relaunch a running app.
    ///   - knownStatus: the receiver status the caller has just read, if any:
    ///     the app is looked for there instead of asking GET_STATUS again
    ///     (a sender that has just asked need not ask twice).
    /// A LAUNCH the receiver answers CANCELLED (another launch raced it) is
    /// sent once more.
    ///
    /// - Throws: ``CastChannelError/Code/launchFailed`` with the receiver's
    ///   ``CastChannelError/launchErrorReason``; ``CastChannelError/Code/timedOut``
    ///   after ``launchTimeout``; or a request error.
    public func launch(
        appID: String, options: LaunchOptions = LaunchOptions(), knownStatus: ReceiverStatus? = nil
    ) async throws(CastChannelError) -> ReceiverApplication {
        let before: ReceiverStatus
        if let knownStatus {
            before = knownStatus
        } else {
            before = try await self.requestStatus()
        }
        let current = before.runningApplication(appID: appID)
        if !options.relaunchIfRunning, let current {
            return current
        }
        var payload: [String: JSONValue] = [
            "type": "LAUNCH",
            "appId": .string(appID),
            "language": .string(options.language),
            "supportedAppTypes": .array(options.supportedAppTypes.map(JSONValue.string)),
        ]
        if let parameters = options.appParameters { payload["appParams"] = parameters }
        let expectation = Expectation.running(appID: appID, replacing: current?.sessionID)
        let status: ReceiverStatus
        do {
            status = try await self.request(payload, timeout: self.launchTimeout, expecting: expectation).status()
        } catch  where error.launchErrorReason == .cancelled {
            // A launch racing another's is CANCELLED; asked once more, it
            // wins (pychromecast's `_launch_app` does the same).
            status = try await self.request(payload, timeout: self.launchTimeout, expecting: expectation).status()
        }
        guard let application = status.runningApplication(appID: appID) else {
            throw CastChannelError(.unexpectedReply, "the receiver's status after LAUNCH does not list \(appID)")
        }
        return application
    }

    /// Stops the app session `sessionID` (STOP). Apps are stopped by session,
    /// never by app id alone: another sender may own that app's session.
    ///
    /// It succeeds on the reply, or on a RECEIVER_STATUS that shows the
    /// session gone: Open Screen's receiver stops the app and only
    /// broadcasts (application_agent.cc:293-304, :429-437).
    ///
    /// - Throws: ``CastChannelError/Code/invalidRequest`` (reason
    ///   `INVALID_SESSION_ID`) for a session that is not running; or a request error.
    @discardableResult
    public func stop(sessionID: String) async throws(CastChannelError) -> ReceiverStatus {
        try await self.request(
            ["type": "STOP", "sessionId": .string(sessionID)], expecting: .stopped(sessionID: sessionID)
        ).status()
    }

    /// Sets the device volume level, clamped to 0...1 (SET_VOLUME with `level` only).
    @discardableResult
    public func setVolume(_ level: Double) async throws(CastChannelError) -> ReceiverStatus {
        let clamped = level.isNaN ? 0 : min(max(level, 0), 1)
        return try await self.request(["type": "SET_VOLUME", "volume": ["level": .number(clamped)]]).status()
    }

    /// Mutes or unmutes the device (SET_VOLUME with `muted` only).
    @discardableResult
    public func setMuted(_ muted: Bool) async throws(CastChannelError) -> ReceiverStatus {
        try await self.request(["type": "SET_VOLUME", "volume": ["muted": .bool(muted)]]).status()
    }

    /// Asks whether the receiver can run each of `appIDs`
    /// (GET_APP_AVAILABILITY). After ``availabilityTimeout`` without a reply,
    /// every app is ``AppAvailability/unknown``.
    ///
    /// - Throws: a send error, ``CastChannelError/Code/disconnected`` or ``CastChannelError/Code/cancelled``.
    public func availability(of appIDs: [String]) async throws(CastChannelError) -> [String: AppAvailability] {
        let reply: ReceiverReply
        do {
            reply = try await self.request(
                ["type": "GET_APP_AVAILABILITY", "appId": .array(appIDs.map(JSONValue.string))],
                timeout: self.availabilityTimeout
            )
        } catch {
            guard error.code == .timedOut else { throw error }
            return Dictionary(appIDs.map { ($0, .unknown) }, uniquingKeysWith: { first, _ in first })
        }
        guard case .appAvailability(let answers) = reply else {
            _ = try reply.status()
            throw CastChannelError(.unexpectedReply, "expected GET_APP_AVAILABILITY")
        }
        return Dictionary(appIDs.map { ($0, answers[$0] ?? .unknown) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Receiving

    /// Decodes a receiver message, applies a status to ``status`` and the
    /// events, then resolves the request it answers.
    /// Types compare without regard to case (``JSONValue/messageType``).
    override public func didReceiveTextMessage(_ message: String) {
        guard let json = try? JSONValue(parsing: message),
            let type = json.messageType
        else {
            self.logger.debug("dropping a receiver message that is not a typed JSON object")
            return
        }
        let reply: ReceiverReply
        switch type {
        case "RECEIVER_STATUS":
            guard let status = json["status"], status.objectValue != nil else {
                self.logger.debug("dropping RECEIVER_STATUS without a status object")
                return
            }
            let decoded = ReceiverStatus(json: status)
            self.apply(decoded)
            reply = .status(decoded)
            self.resolveExpectations(metBy: decoded)
        case "LAUNCH_STATUS":
            // Progress only: the launch's final reply is still to come.
            let status = json["status"]?.stringValue ?? json["launchStatus"]?.stringValue ?? ""
            self.broadcaster.yield(.launchStatusChanged(LaunchStatus(rawValue: status)))
            return
        case "LAUNCH_ERROR":
            let extended = json["extendedError"].map { $0.stringValue ?? (try? $0.jsonText()) ?? "" }
            reply = .launchError(reason: json["reason"]?.stringValue, extendedError: extended)
        case "INVALID_REQUEST":
            reply = .invalidRequest(reason: json["reason"]?.stringValue)
        case "GET_APP_AVAILABILITY":
            var answers: [String: AppAvailability] = [:]
            for (appID, value) in json["availability"]?.objectValue ?? [:] {
                switch value.stringValue {
                case "APP_AVAILABLE": answers[appID] = .available
                case "APP_UNAVAILABLE": answers[appID] = .unavailable
                default: answers[appID] = .unknown
                }
            }
            reply = .appAvailability(answers)
        default:
            self.logger.debug("unknown receiver message type", metadata: ["cast.type": "\(type)"])
            reply = .other(type: type)
        }
        // Chrome's GetRequestIdFromResponse falls back to `launchRequestId`
        // (cast_message_util.cc), the key a Nest Hub's launch replies carry.
        if let requestID = json["requestId"]?.intValue ?? json["launchRequestId"]?.intValue, requestID > 0 {
            self.requests.resolve(requestID: requestID, with: .success(reply))
        }
    }

    /// Fails every pending request: the connection is gone.
    override public func didDisconnect() {
        self.requests.failAll(CastChannelError(.disconnected, "the receiver channel disconnected"))
    }

    private func request(
        _ payload: [String: JSONValue], timeout: Duration? = nil, expecting expectation: Expectation? = nil
    ) async throws(CastChannelError) -> ReceiverReply {
        var requestID: Int?
        defer {
            if let requestID { _ = self.expectations.withLockedValue { $0.removeValue(forKey: requestID) } }
        }
        return try await self.sendRequest(payload, tracker: self.requests, timeout: timeout ?? self.requestTimeout) {
            id in
            guard let expectation else { return }
            requestID = id
            self.expectations.withLockedValue { $0[id] = expectation }
        }
    }

    /// Ends the LAUNCH and STOP requests whose outcome `status` shows.
    private func resolveExpectations(metBy status: ReceiverStatus) {
        let met = self.expectations.withLockedValue { expectations in
            let met = expectations.filter { $0.value.isMet(by: status) }.keys
            for id in met { expectations[id] = nil }
            return Array(met)
        }
        for id in met { self.requests.resolve(requestID: id, with: .success(.status(status))) }
    }

    private func apply(_ status: ReceiverStatus) {
        let previous = self.latest.withLockedValue { latest in
            defer { latest = status }
            return latest
        }
        guard previous != status else { return }
        self.broadcaster.yield(.statusChanged(status))
        if previous?.volume != status.volume {
            self.broadcaster.yield(.volumeChanged(status.volume))
        }
    }
}
