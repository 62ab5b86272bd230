public import CastChannels
public import CastDiscovery
public import CastLogging
public import CastTransport

/// How a ``CastContext`` discovers, connects and keeps sessions alive: the
/// SDK's `GCKCastOptions`. The defaults are the SDK's and Chrome's.
public struct CastOptions: Sendable {
    /// The receiver app sessions launch (or join). Default: the Default Media Receiver.
    public var receiverApplicationID: String
    /// How the app launches: language, app types, relaunch if running.
    public var launchOptions: LaunchOptions
    /// Discovery criteria: interfaces, scan mode, and the device filter.
    /// Passive scanning by default, as the SDK prefers while no device
    /// chooser is open; a chooser switches it to active while it shows.
    public var discovery: DiscoveryConfiguration
    /// The connection: connect timeout, heartbeat, device authentication, queue limits.
    public var connection: CastConnectionConfiguration
    /// How to reconnect a session after the connection is lost.
    public var reconnectPolicy: ReconnectPolicy
    /// How long receiver requests wait for their reply. Default 10 s.
    public var requestTimeout: Duration
    /// How long a launch waits for the app. Default 60 s.
    public var launchTimeout: Duration
    /// Where the current session is remembered so a new process can resume
    /// it (``CastContext/start()`` does): by default a file in the XDG state
    /// directory (``FileSessionStore/standard``); `nil` remembers nothing.
    public var sessionStore: (any SessionStore)?
    /// The log hub.
    public var logger: CastLogger
    /// The clock every timer of the sessions runs on: request and launch
    /// timeouts, reconnection back-off. Default: `ContinuousClock`; tests
    /// pass a clock they advance themselves.
    public var clock: any Clock<Duration>
    /// How many devices ``CastContext/applicationDevices`` asks at once
    /// whether they can run ``receiverApplicationID``. Default 4.
    public var availabilityChecksAtOnce = 4
    /// Which of a media item's images every controller of the context shows
    /// (the SDK's `GCKCastContext.imagePicker`). Default ``FirstImagePicker``.
    public var imagePicker: any ImagePicker = FirstImagePicker()
    /// The size each use of an image is shown at, handed to ``imagePicker``
    /// as ``ImageHints`` (the SDK's image hints); empty by default: no size.
    public var imageSizes: [ImageUsage: ImageSize] = [:]
    /// Where every controller of the context fetches the picked images to
    /// (the SDK's `GCKCastContext.imageCache`); `nil`, the default, fetches
    /// none. CastUI's `DiskImageCache` keeps them on disk, bounded.
    public var imageCache: (any ImageCache)?
    /// How ``CastContext/deviceDetails`` asks devices for their manufacturer
    /// and model: their setup server's ports and the timeout. `nil` never asks.
    public var deviceDetails: CastDeviceDetails.FetchConfiguration? = CastDeviceDetails.FetchConfiguration()
    /// Makes the connections sessions open (`CastConnectionFactory`);
    /// `nil`, the default, connects over the network to each of the
    /// device's addresses. Tests join an emulator in memory through it
    /// (`CastEmulator.inMemoryConnection(configuration:logger:)`).
    public var connectionFactory: CastConnectionFactory?

    /// Creates options.
    public init(
        receiverApplicationID: String = CastApplicationID.defaultMediaReceiver,
        launchOptions: LaunchOptions = LaunchOptions(),
        discovery: DiscoveryConfiguration = DiscoveryConfiguration(scanMode: .passive),
        connection: CastConnectionConfiguration = CastConnectionConfiguration(),
        reconnectPolicy: ReconnectPolicy = ReconnectPolicy(),
        requestTimeout: Duration = .seconds(10),
        launchTimeout: Duration = .seconds(60),
        sessionStore: (any SessionStore)? = FileSessionStore.standard,
        logger: CastLogger = .shared,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.receiverApplicationID = receiverApplicationID
        self.launchOptions = launchOptions
        self.discovery = discovery
        self.connection = connection
        self.reconnectPolicy = reconnectPolicy
        self.requestTimeout = requestTimeout
        self.launchTimeout = launchTimeout
        self.sessionStore = sessionStore
        self.logger = logger
        self.clock = clock
        self.connectionFactory = nil
    }

    /// Whether and how the receiver's identity is checked; the connection's setting.
    public var deviceAuthentication: DeviceAuthenticationPolicy {
        get { self.connection.deviceAuthentication }
        set { self.connection.deviceAuthentication = newValue }
    }
}
