import CastChannels
import CastCommon
@_spi(Receiver) import CastTransport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The state every socket of one emulator shares: the fault knobs, the live
/// sender channels and their virtual connections, the receiver platform,
/// and the observation stream. Handlers on any event loop call in; writes
/// to other sockets go through `Channel.writeAndFlush`, which is thread-safe.
final class EmulatorHub: Sendable {
    /// A virtual connection: from a sender id to a receiver endpoint (`receiver-0` or a transport).
    struct Link: Hashable {
        var senderID: String
        var endpointID: String
    }

    private struct State {
        var faults = EmulatorFaults()
        var channels: [Int: any Channel] = [:]
        var links: [Int: Set<Link>] = [:]
        var nextConnectionID = 1
        var responders: [String: CastEmulator.Responder] = [:]
        var platform: ReceiverPlatform
        /// What fetching each media URL found.
        var probes: [String: MediaFetcher.Probe] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let logger: Logger
    /// What the emulator observes, fanned out to every listener.
    let events = EventBroadcaster<EmulatorEvent>(initial: nil)
    /// The Cast Streaming receiver behind the apps that speak webrtc.
    let streaming: StreamingService
    /// The kind of receiver played.
    let profile: ReceiverProfile
    /// Fetches what the media player is told to play; `nil`: it does not.
    let fetcher: MediaFetcher?

    init(
        profile: ReceiverProfile, applications: [EmulatedApplication], host: String, fetchesMedia: Bool,
        eventLoopGroup: any EventLoopGroup, logger: Logger
    ) {
        self.fetcher = fetchesMedia ? MediaFetcher(timeout: .seconds(10), eventLoopGroup: eventLoopGroup) : nil
        self.state = NIOLockedValueBox(
            State(platform: ReceiverPlatform(profile: profile, applications: applications)))
        self.profile = profile
        self.logger = logger
        let events = self.events
        self.streaming = StreamingService(host: host, configuration: profile.streaming, logger: logger) { report in
            events.yield(.streamingEnded(report))
        }
        self.streaming.onIdle { [weak self] transportID in self?.stopApplication(transportID: transportID) }
    }

    /// Stops the running app — only if its transport is `transportID`, when
    /// given — as the receiver itself would: its senders get CLOSE, every
    /// sender the new status. Returns the stopped session.
    @discardableResult
    func stopApplication(transportID: String? = nil) -> EmulatedAppSession? {
        let (stopped, status) = self.withPlatform { platform -> (EmulatedAppSession?, JSONValue) in
            guard transportID == nil || platform.runningApp?.transportID == transportID else {
                return (nil, platform.statusMessage(requestID: 0))
            }
            return (platform.stop(), platform.statusMessage(requestID: 0))
        }
        guard let stopped else { return nil }
        self.publish(
            ReceiverPlatform.Outcome(broadcasts: [status], stoppedTransports: [stopped.transportID]),
            namespace: CastNamespace.receiver)
        return stopped
    }

    /// The current fault settings.
    var faults: EmulatorFaults {
        get { self.state.withLockedValue { $0.faults } }
        set { self.state.withLockedValue { $0.faults = newValue } }
    }

    /// The responder for `namespace`, if one is set.
    func responder(for namespace: String) -> CastEmulator.Responder? {
        self.state.withLockedValue { $0.responders[namespace] }
    }

    /// Sets (or with `nil` removes) the responder for `namespace`.
    func setResponder(_ responder: CastEmulator.Responder?, for namespace: String) {
        self.state.withLockedValue { $0.responders[namespace] = responder }
    }

    // MARK: Sockets

    /// Registers a sender socket and returns its connection id.
    func register(_ channel: any Channel) -> Int {
        self.state.withLockedValue { state in
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.channels[id] = channel
            return id
        }
    }

    /// Forgets a sender socket and its virtual connections.
    func unregister(_ connectionID: Int) {
        self.state.withLockedValue { state in
            state.channels[connectionID] = nil
            state.links[connectionID] = nil
        }
    }

    /// The live sender sockets.
    var channels: [(id: Int, channel: any Channel)] {
        self.state.withLockedValue { state in
            state.channels.sorted { $0.key < $1.key }.map { (id: $0.key, channel: $0.value) }
        }
    }

    // MARK: Virtual connections

    /// The most virtual connections one socket may hold; a CONNECT beyond it is ignored.
    static let linkLimit = 256

    /// Records a CONNECT; returns `false` when the socket already holds ``linkLimit``.
    func open(_ link: Link, connectionID: Int) -> Bool {
        self.state.withLockedValue { state in
            guard (state.links[connectionID]?.count ?? 0) < Self.linkLimit else { return false }
            state.links[connectionID, default: []].insert(link)
            return true
        }
    }

    /// Forgets a virtual connection; returns whether it was open.
    func close(_ link: Link, connectionID: Int) -> Bool {
        self.state.withLockedValue { $0.links[connectionID]?.remove(link) != nil }
    }

    /// Whether `link` is open on socket `connectionID`.
    func isOpen(_ link: Link, connectionID: Int) -> Bool {
        self.state.withLockedValue { $0.links[connectionID]?.contains(link) ?? false }
    }

    /// Sends CLOSE from `endpointID` to every sender connected to it — or,
    /// given `senderID`, to that sender on every socket, connected or not —
    /// and forgets those virtual connections.
    func closeLinks(to endpointID: String, senderID: String? = nil, reason: VirtualConnectionCloseReason) {
        let closing = self.state.withLockedValue { state in
            var closing: [(Int, Link)] = []
            for connectionID in state.channels.keys.sorted() {
                if let senderID {
                    let link = Link(senderID: senderID, endpointID: endpointID)
                    state.links[connectionID]?.remove(link)
                    closing.append((connectionID, link))
                    continue
                }
                for link in state.links[connectionID] ?? [] where link.endpointID == endpointID {
                    state.links[connectionID]?.remove(link)
                    closing.append((connectionID, link))
                }
            }
            return closing
        }
        guard let text = try? ConnectionMessage.close(reason: reason).text() else { return }
        for (connectionID, link) in closing {
            self.send(
                CastMessage(
                    namespace: TransportNamespace.connection, sourceID: endpointID, destinationID: link.senderID,
                    payload: .string(text)),
                toConnection: connectionID
            )
            self.events.yield(
                .virtualConnectionClosed(connectionID: connectionID, sourceID: link.senderID, destinationID: endpointID)
            )
        }
    }

    // MARK: Receiver platform

    /// Reads or changes the platform under the lock.
    func withPlatform<Result>(_ body: (inout ReceiverPlatform) -> Result) -> Result {
        self.state.withLockedValue { body(&$0.platform) }
    }

    /// Answers a receiver- or multizone-namespace request from `message`'s sender on `connectionID`.
    func handlePlatformRequest(_ message: CastMessage, connectionID: Int) {
        guard let text = message.text, let request = try? JSONValue(parsing: text) else {
            self.logger.debug(
                "dropping a platform message that is not JSON", metadata: ["cast.namespace": "\(message.namespace)"])
            return
        }
        let (outcome, faults) = self.state.withLockedValue { state in
            let outcome =
                message.namespace == CastNamespace.multizone
                ? state.platform.handleMultizoneRequest(request)
                : state.platform.handleReceiverRequest(request, launchFault: state.faults.launch)
            return (outcome, state.faults)
        }
        if outcome.broadcastTiming == .beforeRepliesToEveryone {
            self.publish(outcome, namespace: message.namespace)
        }
        if !faults.dropsReceiverReplies {
            for reply in outcome.replies {
                self.send(
                    reply, namespace: message.namespace, from: message.destinationID, to: message.sourceID,
                    connectionID: connectionID, after: faults.receiverReplyDelay)
            }
        }
        switch outcome.broadcastTiming {
        case .afterRepliesToOthers: self.publish(outcome, namespace: message.namespace, excluding: connectionID)
        case .afterRepliesToEveryone: self.publish(outcome, namespace: message.namespace)
        case .beforeRepliesToEveryone: break
        }
    }

    /// Sends what a platform change means for the senders: CLOSE on stopped
    /// apps' transports, then the broadcasts (requestId 0, destination `*`)
    /// to every socket connected to `receiver-0`, but `excluding`.
    func publish(_ outcome: ReceiverPlatform.Outcome, namespace: String, excluding: Int? = nil) {
        for transportID in outcome.stoppedTransports {
            self.closeLinks(to: transportID, reason: .closedBySelf)
            self.streaming.applicationStopped(transportID: transportID)
        }
        self.broadcast(
            outcome.broadcasts, namespace: namespace, from: CastEndpointID.receiverPlatform, excluding: excluding)
    }

    // MARK: Media

    /// Answers a media-namespace request to the running app's transport at
    /// the media clock's time; others connected to the app hear the change.
    /// With fetching on, a LOAD or QUEUE_LOAD is answered once its media was
    /// fetched, and a SEEK fetches the part it lands in.
    func handleMediaRequest(_ message: CastMessage, connectionID: Int, clock: EmulatorMediaClock) {
        guard let text = message.text, let request = try? JSONValue(parsing: text) else {
            self.logger.debug("dropping a media message that is not JSON")
            return
        }
        guard let fetcher = self.fetcher else {
            self.applyMediaRequest(request, message, connectionID: connectionID, now: clock.now)
            return
        }
        switch request["type"]?.stringValue {
        case "LOAD", "QUEUE_LOAD":
            let media: JSONValue?
            if let items = request["items"]?.arrayValue, !items.isEmpty {
                media = items[min(max(request["startIndex"]?.intValue ?? 0, 0), items.count - 1)]["media"]
            } else {
                media = request["media"]
            }
            guard let media else { break }
            let url = MediaPlayer.contentID(of: media)
            // Where playback starts, and so the first HLS segment fetched: the LOAD's currentTime,
            // else the item's startTime (the Web Receiver's LoadRequestData.currentTime and
            // QueueItem.startTime; Shaka's streaming engine fetches the segment at that time).
            let position = request["currentTime"]?.doubleValue ?? request["startTime"]?.doubleValue ?? 0
            Task {
                let probe = await fetcher.probe(
                    url, declaredType: media["contentType"]?.stringValue, at: position)
                self.state.withLockedValue { state in
                    // Bounded: a sender loading URL after URL does not grow it without end.
                    if state.probes.count >= 256 { state.probes.removeAll() }
                    state.probes[url] = probe
                }
                self.applyMediaRequest(request, message, connectionID: connectionID, now: clock.now)
            }
            return
        case "SEEK":
            self.applyMediaRequest(request, message, connectionID: connectionID, now: clock.now)
            self.fetchWhereTheSeekLands(with: fetcher, now: clock.now)
            return
        case "EDIT_TRACKS_INFO":
            self.applyMediaRequest(request, message, connectionID: connectionID, now: clock.now)
            self.followSoundTrack(with: fetcher, now: clock.now)
            return
        default:
            break
        }
        self.applyMediaRequest(request, message, connectionID: connectionID, now: clock.now)
    }

    /// After a SEEK: fetches what it lands in — the HLS segment (and the
    /// playing sound rendition's) at the position, else the bytes there.
    private func fetchWhereTheSeekLands(with fetcher: MediaFetcher, now: Double) {
        let target = self.state.withLockedValue { state -> SeekFetch? in
            guard let playing = state.platform.media.playing(at: now),
                let probe = state.probes[playing.contentID]
            else { return nil }
            if probe.hls != nil { return .segment(probe, at: playing.position) }
            guard let duration = playing.duration, duration > 0, let size = probe.size, size > 0 else { return nil }
            let offset = Int(Double(size) * min(max(playing.position / duration, 0), 1))
            return .range(playing.contentID, from: min(offset, size - 1))
        }
        switch target {
        case .segment(let probe, let position):
            Task { await fetcher.fetchSegment(of: probe, at: position) }
        case .range(let url, let offset):
            Task { await fetcher.fetch(url, from: offset) }
        case nil:
            break
        }
    }

    /// After the active tracks changed: when the active audio track is
    /// another of the HLS stream's audio renditions than the one playing,
    /// fetches that rendition from the position. Sources: the Web
    /// Receiver takes an EDIT_TRACKS_INFO's `activeTrackIds` for audio
    /// tracks through its `AudioTracksManager` (developers.google.com/cast/
    /// docs/web_receiver/tracks: `setActiveById`, `setActiveByLanguage`),
    /// which has Shaka switch the variant's audio stream from the playhead
    /// (`lib/media/streaming_engine.js`). The track is matched to a
    /// rendition by its `trackContentId` (the LOAD's tracks name the
    /// renditions' playlists; this matching is the emulator's own), else by
    /// its language, as `setActiveByLanguage` does.
    private func followSoundTrack(with fetcher: MediaFetcher, now: Double) {
        let target = self.state.withLockedValue { state -> (MediaFetcher.Probe, URL, String, Double)? in
            guard let playing = state.platform.media.playing(at: now), let probe = state.probes[playing.contentID],
                !probe.sounds.isEmpty, let track = state.platform.media.activeSoundTrack()
            else { return nil }
            let named = URL(string: track.contentID).flatMap { url in probe.sounds.first { $0.url == url } }
            let primary = { (tag: String?) in tag?.split(separator: "-").first?.lowercased() }
            guard
                let rendition = named
                    ?? probe.sounds.first(where: {
                        track.language != nil && primary($0.language) == primary(track.language)
                    }),
                rendition.url != probe.sound?.base
            else { return nil }
            return (probe, rendition.url, playing.contentID, playing.position)
        }
        guard let (probe, url, contentID, position) = target else { return }
        self.logger.info("switching sound to \(url.absoluteString) at \(Int(position)) s")
        Task {
            guard let switched = await fetcher.switchSound(of: probe, to: url, at: position) else {
                self.logger.warning("could not fetch the sound rendition \(url.absoluteString)")
                return
            }
            self.state.withLockedValue { $0.probes[contentID] = switched }
        }
    }

    /// What a SEEK fetches: the HLS segment the position falls in, or the bytes it lands at.
    private enum SeekFetch {
        case segment(MediaFetcher.Probe, at: Double)
        case range(String, from: Int)
    }

    private func applyMediaRequest(_ request: JSONValue, _ message: CastMessage, connectionID: Int, now: Double) {
        let outcome: MediaPlayer.Outcome? = self.state.withLockedValue { state in
            guard state.platform.mediaTransportID == message.destinationID else { return nil }
            let unplayable = state.probes.filter { !$0.value.playable }.keys
            state.platform.media.failingContentIDs = state.faults.failingContentIDs.union(unplayable)
            state.platform.media.stallingContentIDs = state.faults.stallingContentIDs
            state.platform.media.erroringContentIDs = state.faults.erroringContentIDs
            return state.platform.media.handle(request, now: now)
        }
        guard let outcome else {
            self.logger.debug("dropping a media message for an app that does not play media")
            return
        }
        for reply in outcome.replies {
            self.send(
                reply, namespace: CastNamespace.media, from: message.destinationID, to: message.sourceID,
                connectionID: connectionID)
        }
        self.broadcast(
            outcome.broadcasts, namespace: CastNamespace.media, from: message.destinationID, excluding: connectionID)
    }

    /// Moves the player on to `now` and tells every sender of the app what changed.
    func tickMedia(now: Double) {
        let (transportID, broadcasts) = self.state.withLockedValue { state in
            (state.platform.mediaTransportID, state.platform.media.tick(now: now))
        }
        guard let transportID else { return }
        self.broadcast(broadcasts, namespace: CastNamespace.media, from: transportID, excluding: nil)
    }

    /// Sends `messages` (requestId 0, destination `*`) from `endpointID` to every
    /// socket with a virtual connection to it, but `excluding`.
    private func broadcast(_ messages: [JSONValue], namespace: String, from endpointID: String, excluding: Int?) {
        guard !messages.isEmpty else { return }
        let listeners = self.state.withLockedValue { state in
            state.links.filter { id, links in id != excluding && links.contains { $0.endpointID == endpointID } }
                .keys.sorted()
        }
        for connectionID in listeners {
            for message in messages {
                self.send(
                    message, namespace: namespace, from: endpointID, to: CastEndpointID.broadcast,
                    connectionID: connectionID)
            }
        }
    }

    // MARK: Streaming

    /// Answers a webrtc-namespace message to the running app's transport, if that app speaks webrtc.
    func handleStreamingMessage(_ message: CastMessage, connectionID: Int) {
        let speaksWebRTC = self.state.withLockedValue { state in
            guard let app = state.platform.runningApp, app.transportID == message.destinationID else { return false }
            return app.application.namespaces.contains(CastNamespace.webrtc)
        }
        guard speaksWebRTC, let text = message.text, let json = try? JSONValue(parsing: text) else {
            self.logger.debug("dropping a webrtc message for no streaming app, or not JSON")
            return
        }
        self.streaming.handle(json, transportID: message.destinationID) { reply in
            self.send(
                reply, namespace: CastNamespace.webrtc, from: message.destinationID, to: message.sourceID,
                connectionID: connectionID)
        }
    }

    // MARK: Sending

    private func send(
        _ json: JSONValue, namespace: String, from sourceID: String, to destinationID: String,
        connectionID: Int, after delay: Duration = .zero
    ) {
        guard let text = try? json.jsonText() else { return }
        self.send(
            CastMessage(namespace: namespace, sourceID: sourceID, destinationID: destinationID, payload: .string(text)),
            toConnection: connectionID,
            after: delay
        )
    }

    /// Writes `message` on socket `connectionID`, now or after `delay`.
    func send(_ message: CastMessage, toConnection connectionID: Int, after delay: Duration = .zero) {
        guard let channel = self.state.withLockedValue({ $0.channels[connectionID] }) else { return }
        let frame: ByteBuffer
        do {
            frame = try CastMessageFramer.frame(message, allocator: channel.allocator)
        } catch {
            self.logger.warning("cannot frame a message", metadata: ["cast.reason": "\(error)"])
            return
        }
        guard delay > .zero else {
            channel.writeAndFlush(frame, promise: nil)
            return
        }
        channel.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            channel.writeAndFlush(frame, promise: nil)
        }
    }
}
