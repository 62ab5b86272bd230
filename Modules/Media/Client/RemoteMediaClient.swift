public import CastChannels
import CastCommon
import CastTransport
import NIOConcurrencyHelpers

/// Media control of a receiver app (`urn:x-cast:com.google.cast.media` to
/// its transport): the SDK's `GCKRemoteMediaClient`. A session makes one
/// when the app lists the media namespace.
///
/// Every command is an `async` request that ends with the receiver's
/// status, or with a typed ``CastMediaError``: the receiver's refusals
/// (LOAD_FAILED, LOAD_CANCELLED, INVALID_PLAYER_STATE, INVALID_REQUEST,
/// ERROR), a timeout, a lost connection, cancellation of the waiting task,
/// or — for a load — a newer load from this sender. Commands the current
/// media does not support (its supported-command bits) fail at once,
/// without a message.
///
/// The status is merged from partial MEDIA_STATUS updates, whoever caused
/// them (this sender, another, or the receiver), and published on ``events()``.
public final class RemoteMediaClient: CastChannel, @unchecked Sendable {
    // @unchecked Sendable: restated from CastChannel, as Swift requires. Its
    // stored properties are `let`s of Sendable types: `requestTimeout`
    // (Duration), `requests` (RequestTracker, locked inside), `state`
    // (NIOLockedValueBox: the status cache, its arrival time, the app session
    // id and the pending load change only under its lock) and `broadcaster`
    // (EventBroadcaster, locked inside).

    private struct State {
        var cache = MediaStatusCache()
        var receivedAt: ContinuousClock.Instant?
        var applicationSessionID: String?
        var pendingLoadID: Int?
        /// The GET_STATUS sent on connecting, until its reply (or failure) is in.
        var firstStatus: Task<Void, Never>?
    }

    /// How long a request waits for its reply. Default 10 s.
    public let requestTimeout: Duration

    private let requests: RequestTracker<MediaReply>
    private let state = NIOLockedValueBox(State())
    private let broadcaster = EventBroadcaster<MediaEvent>(
        initial: nil, replaysLatest: false, buffering: .bufferingNewest(CastChannel.listenerBufferLimit))

    /// Creates a media client; attach it to the app's transport. Its
    /// requests time out on `clock` (tests pass a clock they advance themselves).
    public init(requestTimeout: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock()) {
        self.requests = RequestTracker(clock: clock)
        self.requestTimeout = requestTimeout
        super.init(platformNamespace: CastNamespace.media)
    }

    // MARK: Observing

    /// The merged status of the media session, or `nil` without one.
    public var mediaStatus: MediaStatus? {
        self.state.withLockedValue { $0.cache.status }
    }

    /// Status and queue changes from now on; each call gives a new, independent stream.
    public func events() -> AsyncStream<MediaEvent> {
        self.broadcaster.subscribe()
    }

    /// The receiver-app session id LOAD carries (`sessionId`); a session sets it.
    public var applicationSessionID: String? {
        get { self.state.withLockedValue { $0.applicationSessionID } }
        set { self.state.withLockedValue { $0.applicationSessionID = newValue } }
    }

    /// The position now, seconds: the last status's, moved on by the time
    /// since it arrived at the playback rate while playing, and kept within
    /// the media's duration. `nil` without a media session.
    public func approximateStreamPosition(at now: ContinuousClock.Instant = .now) -> Double? {
        self.state.withLockedValue { state in
            guard let status = state.cache.status, let receivedAt = state.receivedAt else { return nil }
            guard status.playerState == .playing else { return status.currentTime }
            var position = status.currentTime + (now - receivedAt).inSeconds * status.playbackRate
            if let duration = status.media?.duration, duration > 0 { position = min(position, duration) }
            return max(position, 0)
        }
    }

    // MARK: Loading and transport controls

    /// Loads media (LOAD). A newer load from this sender supersedes this one.
    ///
    /// - Throws: ``CastMediaError/Code/loadFailed`` with the detailed error
    ///   code, ``CastMediaError/Code/loadCancelled``, ``CastMediaError/Code/superseded``,
    ///   or a request error.
    @discardableResult
    public func load(_ request: MediaLoadRequestData) async throws(CastMediaError) -> MediaStatus? {
        var payload: [String: JSONValue] = [
            "type": "LOAD", "autoplay": .bool(request.autoplay), "playbackRate": .number(request.playbackRate),
        ]
        if let start = request.currentTime { payload["currentTime"] = .number(start) }
        if let media = request.mediaInformation { payload["media"] = try JSONValue(encoding: media) }
        if let queue = request.queueData { payload["queueData"] = try JSONValue(encoding: queue) }
        if let ids = request.activeTrackIDs { payload["activeTrackIds"] = .array(ids.map(JSONValue.integer)) }
        if let credentials = request.credentials { payload["credentials"] = .string(credentials) }
        if let type = request.credentialsType { payload["credentialsType"] = .string(type) }
        if let data = request.customData { payload["customData"] = data }
        if let sessionID = self.applicationSessionID { payload["sessionId"] = .string(sessionID) }
        return try await self.send(payload, isLoad: true).status()
    }

    /// Starts or resumes playback (PLAY).
    @discardableResult
    public func play(customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command("PLAY", customData: customData)
    }

    /// Pauses (PAUSE); needs the pause command.
    @discardableResult
    public func pause(customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command("PAUSE", requiring: .pause, customData: customData)
    }

    /// Stops playback and ends the media session (STOP).
    @discardableResult
    public func stop(customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command("STOP", customData: customData)
    }

    /// Seeks (SEEK with `currentTime`, or `relativeTime`, and `resumeState`); needs the seek command.
    @discardableResult
    public func seek(_ options: MediaSeekOptions) async throws(CastMediaError) -> MediaStatus? {
        var fields: [String: JSONValue] = [options.relative ? "relativeTime" : "currentTime": .number(options.interval)]
        if options.resumeState != .unchanged { fields["resumeState"] = .string(options.resumeState.rawValue) }
        return try await self.command("SEEK", fields, requiring: .seek, customData: options.customData)
    }

    /// Sets the stream volume, clamped to 0...1 (SET_VOLUME with `level`); needs stream volume.
    @discardableResult
    public func setStreamVolume(_ level: Double, customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        let clamped = level.isNaN ? 0 : min(max(level, 0), 1)
        return try await self.command(
            "SET_VOLUME", ["volume": ["level": .number(clamped)]], requiring: .streamVolume, customData: customData)
    }

    /// Mutes or unmutes the stream (SET_VOLUME with `muted`); needs stream mute.
    @discardableResult
    public func setStreamMuted(_ muted: Bool, customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        try await self.command(
            "SET_VOLUME", ["volume": ["muted": .bool(muted)]], requiring: .streamMute, customData: customData)
    }

    /// Turns on exactly these tracks (EDIT_TRACKS_INFO); needs edit tracks.
    @discardableResult
    public func setActiveTrackIDs(_ trackIDs: [Int], customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        try await self.command(
            "EDIT_TRACKS_INFO", ["activeTrackIds": .array(trackIDs.map(JSONValue.integer))], requiring: .editTracks,
            customData: customData)
    }

    /// Sets how text tracks look (EDIT_TRACKS_INFO with `textTrackStyle`); needs edit tracks.
    @discardableResult
    public func setTextTrackStyle(_ style: TextTrackStyle, customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        try await self.command(
            "EDIT_TRACKS_INFO", ["textTrackStyle": try JSONValue(encoding: style)], requiring: .editTracks,
            customData: customData)
    }

    /// Sets the playback rate (SET_PLAYBACK_RATE); needs playback rate.
    @discardableResult
    public func setPlaybackRate(_ rate: Double, customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        try await self.command(
            "SET_PLAYBACK_RATE", ["playbackRate": .number(rate)], requiring: .playbackRate, customData: customData)
    }

    /// Skips the playing ad clip (SKIP_AD); needs skip ad.
    @discardableResult
    public func skipAd() async throws(CastMediaError) -> MediaStatus? {
        try await self.command("SKIP_AD", requiring: .skipAd)
    }

    /// Asks for the media status (GET_STATUS), with or without a media session.
    @discardableResult
    public func requestStatus() async throws(CastMediaError) -> MediaStatus? {
        var payload: [String: JSONValue] = ["type": "GET_STATUS"]
        if let id = self.mediaStatus?.mediaSessionID { payload["mediaSessionId"] = .integer(id) }
        return try await self.send(payload).status()
    }

    // MARK: Sending

    /// Sends a command for the current media session: checks it exists and
    /// supports `requirement`, then adds `mediaSessionId` and `customData`.
    func command(
        _ type: String,
        _ fields: [String: JSONValue] = [:],
        requiring requirement: SupportedMediaCommands = [],
        customData: JSONValue? = nil
    ) async throws(CastMediaError) -> MediaStatus? {
        if self.mediaStatus == nil, let first = self.state.withLockedValue({ $0.firstStatus }) {
            await first.value
        }
        guard let status = self.mediaStatus else {
            throw CastMediaError(.noMediaSession, "\(type) needs a media session; load media first")
        }
        guard status.supportedMediaCommands.isSuperset(of: requirement) else {
            throw CastMediaError(.unsupportedCommand, "the current media does not support \(type)")
        }
        var payload = fields
        payload["type"] = .string(type)
        payload["mediaSessionId"] = .integer(status.mediaSessionID)
        if let customData { payload["customData"] = customData }
        return try await self.send(payload).status()
    }

    /// Sends a request and waits for its reply; a load first supersedes the pending one.
    func send(_ payload: [String: JSONValue], isLoad: Bool = false) async throws(CastMediaError) -> MediaReply {
        do {
            return try await self.sendRequest(payload, tracker: self.requests, timeout: self.requestTimeout) { id in
                guard isLoad else { return }
                let previous = self.state.withLockedValue { state in
                    defer { state.pendingLoadID = id }
                    return state.pendingLoadID
                }
                if let previous {
                    self.requests.resolve(
                        requestID: previous,
                        with: .success(
                            .failure(CastMediaError(.superseded, "a newer load from this sender replaced it"))))
                }
            }
        } catch {
            throw CastMediaError(error)
        }
    }

    // MARK: Receiving

    /// Asks for the status as soon as the channel connects, as pychromecast
    /// does (controllers/media.py:576-578): a receiver does not push one on
    /// CONNECT (Open Screen's application_agent.cc sends nothing), and every
    /// command needs the `mediaSessionId` the reply brings — after joining a
    /// running app, commands would otherwise fail with `noMediaSession`.
    /// A command given before that reply waits for it.
    override public func didConnect() {
        let request = Task { [weak self] in
            do throws(CastMediaError) {
                try await self?.requestStatus()
            } catch {
                self?.logger.debug("the first media status did not arrive", metadata: ["cast.reason": "\(error)"])
            }
        }
        self.state.withLockedValue { $0.firstStatus = request }
    }

    /// Decodes a media message, merges a status, then resolves the request it answers.
    override public func didReceiveTextMessage(_ message: String) {
        guard let json = try? JSONValue(parsing: message), let type = json.messageType else {
            self.logger.debug("dropping a media message that is not a typed JSON object")
            return
        }
        let requestID = json["requestId"]?.intValue ?? 0
        let reply: MediaReply
        switch type {
        case "MEDIA_STATUS":
            switch self.apply(json) {
            case .success(let status):
                reply = .status(status)
            case .failure(let error):
                self.logger.debug("dropping a malformed MEDIA_STATUS", metadata: ["cast.reason": "\(error)"])
                return
            }
        case "QUEUE_ITEM_IDS":
            reply = .queueItemIDs(json["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? [])
        case "QUEUE_ITEMS":
            reply = .queueItems(json["items"]?.decoded(as: [MediaQueueItem].self) ?? [])
        case "QUEUE_CHANGE":
            self.broadcaster.yield(
                .queueChanged(
                    MediaQueueChange(
                        changeType: json["changeType"]?.stringValue ?? "",
                        itemIDs: json["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? [],
                        insertBefore: json["insertBefore"]?.intValue)))
            return
        case "LOAD_FAILED":
            reply = .failure(
                CastMediaError(
                    .loadFailed, "the receiver could not load the media",
                    detailedErrorCode: json["detailedErrorCode"]?.intValue))
        case "LOAD_CANCELLED":
            reply = .failure(CastMediaError(.loadCancelled, "a newer load replaced this one"))
        case "INVALID_PLAYER_STATE":
            reply = .failure(CastMediaError(.invalidPlayerState, "the player cannot do this now"))
        case "INVALID_REQUEST":
            reply = .failure(
                CastMediaError(
                    .invalidRequest, "the receiver rejected the request", reason: json["reason"]?.stringValue))
        case "ERROR":
            reply = .failure(
                CastMediaError(
                    .playerError, "the player failed", detailedErrorCode: json["detailedErrorCode"]?.intValue))
        default:
            self.logger.debug("unknown media message type", metadata: ["cast.type": "\(type)"])
            reply = .other(type: type)
        }
        guard requestID > 0 else { return }
        self.state.withLockedValue { state in
            if state.pendingLoadID == requestID { state.pendingLoadID = nil }
        }
        self.requests.resolve(requestID: requestID, with: .success(reply))
    }

    /// Fails every pending request: the connection is gone.
    override public func didDisconnect() {
        self.state.withLockedValue { state in
            state.pendingLoadID = nil
            state.firstStatus = nil
        }
        self.requests.failAll(CastChannelError(.disconnected, "the media channel disconnected"))
    }

    /// Merges a MEDIA_STATUS into the cache and publishes the result; the cache is unchanged on failure.
    ///
    /// A status that carries `media` is first published as
    /// ``MediaEvent/metadataChanged(_:)``, as is the end of a media session
    /// that had media. The receiver SDK sends `media` when the media, its
    /// metadata or its text-track style change, "regardless" of whether the
    /// style differs, and leaves it out of other updates (the v2 guide's
    /// tracks section; conformance 038, 041), so a listener of metadata hears
    /// a style change and not an active-tracks change, as the seed's
    /// `mediaControlChannelDidUpdateMetadata:` does.
    private func apply(_ message: JSONValue) -> Result<MediaStatus?, CastChannelError> {
        let entry = message["status"]?.arrayValue.map { $0.first } ?? message
        let result: Result<(MediaStatus?, metadataChanged: Bool), CastChannelError> = self.state.withLockedValue {
            state in
            let hadMedia = state.cache.status?.media != nil
            do throws(CastChannelError) {
                let status = try state.cache.apply(message)
                state.receivedAt = .now
                return .success((status, entry?["media"] != nil || (hadMedia && status?.media == nil)))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let (status, metadataChanged)):
            if metadataChanged { self.broadcaster.yield(.metadataChanged(status?.media)) }
            self.broadcaster.yield(.statusChanged(status))
            return .success(status)
        case .failure(let error):
            return .failure(error)
        }
    }
}
