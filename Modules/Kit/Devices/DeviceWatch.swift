public import CastChannels
public import CastMedia
public import CastTransport
import NIOConcurrencyHelpers

/// Everything one device says, as one stream: its receiver's statuses,
/// volume and launches, the apps that start and stop, and the media of
/// whichever app plays media, joined as it starts and left as it stops —
/// until the connection drops. What `cast watch` prints as JSON lines
/// (go-chromecast's `watch`, pychromecast's status listeners).
///
/// ```swift
/// let watch = DeviceWatch(link: link)
/// for await event in watch.events() {
///     if case .applicationStarted(let app) = event { print(app.displayName) }
/// }
/// ```
public final class DeviceWatch: Sendable {
    /// What the device says.
    public enum Event: Sendable {
        /// The receiver's status, volume or launch changed (a status comes first).
        case receiver(ReceiverEvent)
        /// An app (not the idle screen) started.
        case applicationStarted(ReceiverApplication)
        /// An app stopped.
        case applicationStopped(ReceiverApplication)
        /// The media of the app that plays media changed.
        case media(MediaEvent)
        /// The app that plays media could not be joined: its media is not followed.
        case mediaUnreachable(ReceiverApplication, CastChannelError)
        /// The connection dropped; the stream ends after it.
        case disconnected(CastTransportError)
    }

    private let link: CastDeviceLink
    private let requestTimeout: Duration

    /// Watches the device `link` reaches; media requests wait `requestTimeout`.
    public init(link: CastDeviceLink, requestTimeout: Duration = .seconds(10)) {
        self.link = link
        self.requestTimeout = requestTimeout
    }

    /// The device's events, from its status now, until the connection drops
    /// (the last is ``Event/disconnected(_:)``) or the stream is dropped.
    /// Each call follows the device on its own.
    public func events() -> AsyncStream<Event> {
        DeviceFollower(link: self.link, requestTimeout: self.requestTimeout).events()
    }
}

/// One ``DeviceWatch/events()`` stream's following: the apps seen running
/// and the media app joined.
private final class DeviceFollower: Sendable {
    typealias Event = DeviceWatch.Event

    private struct State {
        var running: [String: ReceiverApplication] = [:]
        var media: (sessionID: String, client: RemoteMediaClient, task: Task<Void, Never>)?
    }

    private let link: CastDeviceLink
    private let requestTimeout: Duration
    private let state = NIOLockedValueBox(State())

    init(link: CastDeviceLink, requestTimeout: Duration) {
        self.link = link
        self.requestTimeout = requestTimeout
    }

    func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let receiverEvents = self.link.receiver.events()
        let states = self.link.connection.stateUpdates()
        let following = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await state in states {
                        guard case .disconnected(let reason) = state else { continue }
                        continuation.yield(.disconnected(reason))
                        continuation.finish()
                    }
                }
                // One task follows the statuses, in order: the one asked for now, then those that come.
                if let status = try? await self.link.receiver.requestStatus() {
                    await self.receiverEvent(.statusChanged(status), to: continuation)
                }
                for await event in receiverEvents { await self.receiverEvent(event, to: continuation) }
                group.cancelAll()
            }
        }
        continuation.onTermination = { _ in
            following.cancel()
            self.leaveMedia()
        }
        return stream
    }

    private func receiverEvent(_ event: ReceiverEvent, to continuation: AsyncStream<Event>.Continuation) async {
        continuation.yield(.receiver(event))
        guard case .statusChanged(let status) = event else { return }
        await self.follow(status, to: continuation)
    }

    /// Tells the apps that started or stopped, and joins (or leaves) the media app.
    private func follow(_ status: ReceiverStatus, to continuation: AsyncStream<Event>.Continuation) async {
        let now = Dictionary(
            status.applications.filter { !$0.isIdleScreen }.compactMap { app in app.sessionID.map { ($0, app) } },
            uniquingKeysWith: { first, _ in first })
        let (before, media) = self.state.withLockedValue { state in
            defer { state.running = now }
            return (state.running, state.media)
        }
        for (sessionID, app) in now where before[sessionID] == nil { continuation.yield(.applicationStarted(app)) }
        for (sessionID, app) in before where now[sessionID] == nil { continuation.yield(.applicationStopped(app)) }
        if let media, now[media.sessionID] == nil { self.leaveMedia() }
        guard self.state.withLockedValue({ $0.media == nil }),
            let (sessionID, app) = now.first(where: { $0.value.supports(namespace: CastNamespace.media) })
        else { return }
        let client = RemoteMediaClient(requestTimeout: self.requestTimeout)
        let events = client.events()
        let task = Task {
            for await event in events { continuation.yield(.media(event)) }
        }
        self.state.withLockedValue { $0.media = (sessionID, client, task) }
        do {
            try await self.link.join(app, attaching: [client])
        } catch {
            continuation.yield(.mediaUnreachable(app, error))
            self.leaveMedia()
        }
    }

    /// Stops following the media app.
    private func leaveMedia() {
        let media = self.state.withLockedValue { state in
            defer { state.media = nil }
            return state.media
        }
        media?.task.cancel()
        media?.client.detach()
    }
}
