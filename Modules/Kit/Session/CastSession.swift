public import CastChannels
public import CastDiscovery
public import CastMedia
public import CastTransport
import NIOConcurrencyHelpers

/// One sender's session with one receiver app: the SDK's `GCKCastSession`.
///
/// The session outlives its connections: when the connection drops and
/// comes back (or the app moves to another device), the same session
/// object, its ``receiver`` channel and its added channels carry on.
public final class CastSession: Sendable, CustomStringConvertible {
    /// Where a session is in its life.
    public enum State: Sendable, Hashable {
        /// Connecting and launching.
        case starting
        /// Connected to the running app.
        case connected
        /// Connection lost; reconnecting.
        case suspended
        /// Being ended.
        case ending
        /// Over.
        case ended
    }

    private struct Link {
        let connection: CastConnection
        let application: ReceiverApplication
        let transportID: String
    }

    private struct Storage {
        var device: CastDevice
        var state = State.starting
        var link: Link?
        var sessionID: String?
        var application: ReceiverApplication?
        var channels: [ObjectIdentifier: CastChannel] = [:]
        var remoteMediaClient: RemoteMediaClient?
        var generation = 0
        var verification = DeviceVerification.notChecked
    }

    /// The receiver app's id.
    public let applicationID: String
    /// The receiver platform's channel: status, device volume, app control.
    /// It stays the same object across reconnections.
    public let receiver: ReceiverChannel

    private let storage: NIOLockedValueBox<Storage>
    private let logger: CastLogger

    private let mediaRequestTimeout: Duration
    private let clock: any Clock<Duration>

    init(
        device: CastDevice, applicationID: String, receiver: ReceiverChannel, requestTimeout: Duration,
        clock: any Clock<Duration>, logger: CastLogger
    ) {
        self.applicationID = applicationID
        self.receiver = receiver
        self.mediaRequestTimeout = requestTimeout
        self.clock = clock
        self.logger = logger
        self.storage = NIOLockedValueBox(Storage(device: device))
    }

    /// Media control, once the session has connected to an app that lists
    /// the media namespace; `nil` otherwise. One per session, kept across
    /// reconnections, with as many listeners as the app wants.
    public var remoteMediaClient: RemoteMediaClient? {
        self.storage.withLockedValue { $0.remoteMediaClient }
    }

    /// The device the session runs on (after stream transfer, the new one).
    public var device: CastDevice { self.storage.withLockedValue { $0.device } }
    /// Where the session is in its life.
    public var state: State { self.storage.withLockedValue { $0.state } }
    /// Whether the device proved, on the current connection, that it is a
    /// genuine Cast device (``CastOptions/connection``'s device-authentication
    /// policy; by default every device is checked against Google's Cast roots).
    public var deviceVerification: DeviceVerification { self.storage.withLockedValue { $0.verification } }
    /// Whether the device is a verified Cast device.
    public var isVerifiedDevice: Bool { self.deviceVerification.isVerified }
    /// The receiver-app session id, once the app runs.
    public var sessionID: String? { self.storage.withLockedValue { $0.sessionID } }
    /// The running app as last reported, once it runs.
    public var application: ReceiverApplication? { self.storage.withLockedValue { $0.application } }
    /// The connection in use, while connected.
    public var connection: CastConnection? { self.storage.withLockedValue { $0.link?.connection } }

    /// A one-line description for logs.
    public var description: String {
        let (device, state, sessionID) = self.storage.withLockedValue { ($0.device, $0.state, $0.sessionID) }
        return "CastSession(\(self.applicationID) on \(device.friendlyName), \(state), \(sessionID ?? "no session id"))"
    }

    // MARK: Channels

    /// Adds a channel to the session. It connects now if the session is
    /// connected and the app lists its namespace, and otherwise whenever the
    /// session connects to an app that does. Adding it again does nothing.
    public func add(_ channel: CastChannel) {
        let link = self.storage.withLockedValue { storage -> Link? in
            storage.channels[ObjectIdentifier(channel)] = channel
            return storage.link
        }
        if let link, link.application.supports(namespace: channel.namespace), !channel.isConnected {
            channel.attach(to: link.connection, destinationID: link.transportID, logger: self.logger)
        }
    }

    /// Removes a channel from the session and disconnects it.
    public func remove(_ channel: CastChannel) {
        let removed = self.storage.withLockedValue { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
        removed?.detach()
    }

    /// The channels added to the session.
    public var channels: [CastChannel] {
        self.storage.withLockedValue { Array($0.channels.values) }
    }

    /// Whether the running app speaks `namespace` (to decide whether a channel can work here).
    public func supports(namespace: String) -> Bool {
        self.application?.supports(namespace: namespace) ?? false
    }

    // MARK: Driven by the session manager

    /// The link's generation: bumped whenever the session connects or disconnects,
    /// so signals from an old connection are recognised and ignored.
    var generation: Int { self.storage.withLockedValue { $0.generation } }

    func setState(_ state: State) {
        self.storage.withLockedValue { $0.state = state }
    }

    /// Connected to `application` over `connection` on `device`: attach the channels it supports.
    func connect(
        _ connection: CastConnection, application: ReceiverApplication, transportID: String, device: CastDevice,
        verification: DeviceVerification
    )
        -> Int
    {
        let (channels, generation) = self.storage.withLockedValue { storage in
            if application.supports(namespace: CastNamespace.media), storage.remoteMediaClient == nil {
                let client = RemoteMediaClient(requestTimeout: self.mediaRequestTimeout, clock: self.clock)
                storage.remoteMediaClient = client
                storage.channels[ObjectIdentifier(client)] = client
            }
            storage.remoteMediaClient?.applicationSessionID = application.sessionID
            storage.link = Link(connection: connection, application: application, transportID: transportID)
            storage.device = device
            storage.verification = verification
            storage.sessionID = application.sessionID
            storage.application = application
            storage.state = .connected
            storage.generation += 1
            return (Array(storage.channels.values), storage.generation)
        }
        for channel in channels where application.supports(namespace: channel.namespace) {
            channel.attach(to: connection, destinationID: transportID, logger: self.logger)
        }
        return generation
    }

    /// The connection is gone or going: detach every channel; returns the connection, if there was one.
    @discardableResult
    func disconnect(to state: State) -> CastConnection? {
        let (channels, link) = self.storage.withLockedValue { storage in
            defer {
                storage.link = nil
                storage.state = state
                storage.generation += 1
            }
            return (Array(storage.channels.values), storage.link)
        }
        for channel in channels { channel.detach() }
        self.receiver.detach()
        return link?.connection
    }

    /// The transport id of the current link, if connected.
    var transportID: String? { self.storage.withLockedValue { $0.link?.transportID } }
}
