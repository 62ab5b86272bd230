public import CastChannels
import CastCommon
public import CastLogging
import CastTransport
import NIOConcurrencyHelpers

/// The channel that starts Remote Display sessions, on
/// `urn:x-cast:com.google.cast.webrtc` — the SDK's `GCKRemoteDisplayChannel`.
///
/// Launch the Remote Display receiver app (mirroring, `0F5096E8`, by
/// default), add this channel to the Cast session (or attach it to the app's
/// transport yourself), then call ``beginSession(configuration:)``:
///
/// ```swift
/// let channel = RemoteDisplayChannel()
/// session.add(channel)
/// let display = try await channel.beginSession(configuration: RemoteDisplayConfiguration())
/// guard var frame = display.createPixelBuffer() else { return }
/// render(into: &frame)
/// try display.enqueueVideoFrame(frame, pts: .now)
/// ```
///
/// While a session runs, the channel watches the receiver's status on the
/// same connection: when the app is gone, the session ends. When the
/// connection drops, the session is interrupted; when the session layer
/// reconnects the channel, it resumes with a key frame.
public final class RemoteDisplayChannel: CastChannel, @unchecked Sendable {
    // @unchecked Sendable, because CastChannel is open and the compiler
    // checks only final classes. Stored properties: `answers`
    // (RequestTracker, Sendable), `logger` (CastLogger, Sendable) and `state`
    // (a NIOLockedValueBox: the sequence counter, the live session and the status watcher
    // change only under it).

    private struct State {
        var nextSequenceNumber = 1
        /// The newest OFFER's `seqNum`, while it waits for its ANSWER.
        var pendingOffer: Int?
        var session: RemoteDisplaySession?
        var watcher: Task<Void, Never>?
        /// The app ``launchSession(configuration:on:)`` launched: the receiver
        /// channel to stop it on and its session id.
        var launched: (receiver: ReceiverChannel, sessionID: String)?
    }

    private let answers: RequestTracker<JSONValue>
    private let state = NIOLockedValueBox(State())
    private let clock: any Clock<Duration>
    /// What video is encoded with (``VideoEncoders/none``: sound alone).
    public let videoEncoders: VideoEncoders
    let castLogger: CastLogger

    /// Creates a channel that encodes video with `videoEncoders`, or `nil`
    /// when this machine cannot encode with them or cannot encode Opus, as
    /// the SDK's `-init` returns nil. With ``VideoEncoders/none`` the
    /// channel sends sound alone; `CastRemoteDisplay`'s `init(logger:clock:)`
    /// passes its VP8, VP9, H.264 and AV1 encoders. The wait for an ANSWER
    /// and each session's first-frame deadline run on `clock` (tests pass a
    /// clock they advance themselves).
    public init?(
        logger: CastLogger = .shared, clock: any Clock<Duration> = ContinuousClock(), videoEncoders: VideoEncoders
    ) {
        guard isOpusUsable, videoEncoders.isUsable else { return nil }
        self.castLogger = logger
        self.clock = clock
        self.videoEncoders = videoEncoders
        self.answers = RequestTracker(clock: clock)
        super.init(platformNamespace: CastNamespace.webrtc)
    }

    deinit {
        self.state.withLockedValue { $0.watcher?.cancel() }
    }

    /// The session this channel started, while it has not ended.
    public var currentSession: RemoteDisplaySession? {
        self.state.withLockedValue { $0.session }
    }

    /// Offers `configuration` to the receiver app and, when its ANSWER
    /// accepts, returns the running session. A session already running on
    /// this channel ends (``RemoteDisplaySessionEndReason/replaced``).
    ///
    /// - Throws: ``CastRemoteDisplayError`` —
    ///   ``CastRemoteDisplayError/Code-swift.struct/invalidConfiguration`` before sending;
    ///   ``CastRemoteDisplayError/Code-swift.struct/notConnected`` without an attached app;
    ///   ``CastRemoteDisplayError/Code-swift.struct/answerTimedOut``;
    ///   ``CastRemoteDisplayError/Code-swift.struct/offerRejected`` (the cause is an
    ///   ``OfferRejection`` with the receiver's code and description) or
    ///   ``CastRemoteDisplayError/Code-swift.struct/noAcceptableStream`` — change the
    ///   configuration and try again; ``CastRemoteDisplayError/Code-swift.struct/invalidAnswer``;
    ///   ``CastRemoteDisplayError/Code-swift.struct/codecFailure`` or
    ///   ``CastRemoteDisplayError/Code-swift.struct/networkFailure`` when the sender cannot start.
    public func beginSession(configuration: RemoteDisplayConfiguration) async throws(CastRemoteDisplayError)
        -> RemoteDisplaySession
    {
        let configuration = try configuration.validated()
        if configuration.offersVideo, !self.videoEncoders.encodesVideo {
            throw CastRemoteDisplayError(
                .codecFailure, "this channel encodes no video; make it with CastRemoteDisplay's encoders")
        }
        guard let (connection, transportID) = self.currentLink else {
            throw CastRemoteDisplayError(.notConnected, "attach the channel to the receiver app first")
        }
        let sequenceNumber = self.state.withLockedValue { state in
            defer { state.nextSequenceNumber += 1 }
            state.pendingOffer = state.nextSequenceNumber
            return state.nextSequenceNumber
        }
        defer {
            self.state.withLockedValue { state in
                if state.pendingOffer == sequenceNumber { state.pendingOffer = nil }
            }
        }
        let offer = try StreamingOffer(configuration: configuration, sequenceNumber: sequenceNumber)
        let text: String
        do throws(CastChannelError) {
            text = try offer.message.jsonText()
        } catch {
            throw CastRemoteDisplayError(.invalidConfiguration, "the offer cannot be written as JSON", cause: error)
        }
        let reply: JSONValue
        do throws(CastChannelError) {
            reply = try await self.answers.perform(requestID: sequenceNumber, timeout: configuration.answerTimeout) {
                () async throws(CastChannelError) in
                try await self.sendTextMessage(text)
            }
        } catch {
            throw Self.translate(error, timeout: configuration.answerTimeout)
        }
        let answer = try StreamingAnswer(reply, offer: offer)
        let session = try RemoteDisplaySession(
            answer: answer, host: connection.host, transportID: transportID, videoEncoders: self.videoEncoders,
            clock: self.clock, logger: self.castLogger)
        let previous = self.state.withLockedValue { state in
            defer { state.session = session }
            return state.session
        }
        previous?.end(.replaced)
        self.watchReceiver(on: connection, for: session)
        return session
    }

    // MARK: Hooks

    /// Resolves the waiting offer an ANSWER names by `seqNum` — or, for an
    /// ANSWER without one (a first-generation Chromecast's, conformance
    /// 071), the newest offer; the type compares without regard to case
    /// (`JSONValue.messageType`). Other messages are logged and dropped.
    public override func didReceiveTextMessage(_ message: String) {
        guard let json = try? JSONValue(parsing: message), json.messageType == "ANSWER",
            let sequenceNumber = json["seqNum"]?.intValue ?? self.state.withLockedValue({ $0.pendingOffer })
        else {
            self.logger.debug("dropping a webrtc message that is not an ANSWER to a waiting offer")
            return
        }
        self.answers.resolve(requestID: sequenceNumber, with: .success(json))
    }

    /// Resumes an interrupted session on the new connection.
    public override func didConnect() {
        guard let session = self.currentSession, let (connection, transportID) = self.currentLink else { return }
        guard transportID == session.applicationTransportID else {
            self.endSession(.receiverApplicationStopped)
            return
        }
        session.resume(host: connection.host)
        self.watchReceiver(on: connection, for: session)
    }

    /// Interrupts the session and fails a waiting offer.
    public override func didDisconnect() {
        self.answers.failAll(CastChannelError(.disconnected, "the channel disconnected"))
        self.currentSession?.interrupt()
    }

    // MARK: Internals

    /// Remembers the app ``launchSession(configuration:on:)`` launched.
    func rememberLaunch(receiver: ReceiverChannel, sessionID: String) {
        self.state.withLockedValue { $0.launched = (receiver, sessionID) }
    }

    /// Forgets, and returns, the app ``launchSession(configuration:on:)`` launched.
    func takeLaunch() -> (receiver: ReceiverChannel, sessionID: String)? {
        self.state.withLockedValue { state in
            defer { state.launched = nil }
            return state.launched
        }
    }

    /// Ends the session when a RECEIVER_STATUS on `connection` no longer lists its app.
    private func watchReceiver(on connection: CastConnection, for session: RemoteDisplaySession) {
        let statuses = connection.messages(
            namespace: CastNamespace.receiver, from: CastEndpointID.receiverPlatform, to: connection.senderID)
        let transportID = session.applicationTransportID
        let watcher = Task { [weak self] in
            for await message in statuses {
                guard let text = message.text, let json = try? JSONValue(parsing: text),
                    json.messageType == "RECEIVER_STATUS", let status = json["status"]
                else { continue }
                let running = ReceiverStatus(json: status).applications.contains { $0.transportID == transportID }
                if !running {
                    self?.endSession(.receiverApplicationStopped, ifCurrent: session)
                    return
                }
            }
        }
        let previous = self.state.withLockedValue { state in
            defer { state.watcher = watcher }
            return state.watcher
        }
        previous?.cancel()
    }

    private func endSession(_ reason: RemoteDisplaySessionEndReason, ifCurrent expected: RemoteDisplaySession? = nil) {
        let ended = self.state.withLockedValue { state -> RemoteDisplaySession? in
            guard let session = state.session, expected == nil || expected === session else { return nil }
            state.session = nil
            state.watcher?.cancel()
            state.watcher = nil
            return session
        }
        ended?.end(reason)
    }

    private static func translate(_ error: CastChannelError, timeout: Duration) -> CastRemoteDisplayError {
        switch error.code {
        case .timedOut:
            CastRemoteDisplayError(.answerTimedOut, "no ANSWER within \(timeout)", cause: error)
        case .notConnected, .disconnected:
            CastRemoteDisplayError(.notConnected, "the channel is not connected to the receiver app", cause: error)
        default:
            CastRemoteDisplayError(.networkFailure, "the OFFER could not be sent", cause: error)
        }
    }
}

/// Encodes one Opus frame; whether it worked.
package let isOpusUsable: Bool = {
    do throws(CastRemoteDisplayError) {
        var audio = try OpusEncoder(channelCount: 2)
        _ = try audio.encode(interleaved: [Float](repeating: 0, count: OpusEncoder.frameSamples * 2), pts: .now)
        return true
    } catch {
        return false
    }
}()
