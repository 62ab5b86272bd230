import CastChannels

/// A receiver app the emulator can run: its id, name and namespaces.
public struct EmulatedApplication: Sendable, Hashable {
    /// The app id senders launch.
    public var appID: String
    /// The name in RECEIVER_STATUS.
    public var displayName: String
    /// The namespaces the app lists (senders attach channels for these).
    public var namespaces: [String]
    /// Whether this is the idle screen: shown when no other app runs, and
    /// counted by senders as no app.
    public var isIdleScreen: Bool

    /// Creates an app definition.
    public init(appID: String, displayName: String, namespaces: [String], isIdleScreen: Bool = false) {
        self.appID = appID
        self.displayName = displayName
        self.namespaces = namespaces
        self.isIdleScreen = isIdleScreen
    }

    /// The Default Media Receiver (`CC1AD845`).
    public static let defaultMediaReceiver = EmulatedApplication(
        appID: CastApplicationID.defaultMediaReceiver,
        displayName: "Default Media Receiver",
        namespaces: ["urn:x-cast:com.google.cast.player.message", CastNamespace.media]
    )

    /// Screen mirroring (`0F5096E8`), the Cast Streaming receiver.
    public static let mirroring = EmulatedApplication(
        appID: CastApplicationID.mirroring,
        displayName: "Chrome Mirroring",
        namespaces: [CastNamespace.webrtc, CastNamespace.remoting]
    )

    /// Audio-only mirroring (`85CDB22F`), the Cast Streaming receiver of speakers.
    public static let audioMirroring = EmulatedApplication(
        appID: CastApplicationID.audioMirroring,
        displayName: "Chrome Mirroring",
        namespaces: [CastNamespace.webrtc]
    )

    /// Backdrop (`E8C28D3C`), the idle screen.
    public static let backdrop = EmulatedApplication(
        appID: CastApplicationID.backdrop,
        displayName: "Backdrop",
        namespaces: [],
        isIdleScreen: true
    )

    /// The apps an emulator knows unless configured otherwise.
    public static let standard: [EmulatedApplication] = [.defaultMediaReceiver, .mirroring, .backdrop]
}

/// A running app on the emulator: one receiver-app session.
public struct EmulatedAppSession: Sendable, Hashable {
    /// The app.
    public var application: EmulatedApplication
    /// The receiver-app session id (a UUID).
    public var sessionID: String
    /// The app's transport id, the destination of its messages.
    public var transportID: String
}
