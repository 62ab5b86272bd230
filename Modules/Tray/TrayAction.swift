public import CastDiscovery

/// What a tray menu item asks for when the user picks it.
///
/// ``CastTray`` performs the media actions itself, on the session's
/// `MediaControllerModel`; it hands the others to the app, which
/// owns what it streams.
public enum TrayAction: Sendable, Hashable {
    /// Mirror this machine's screen (and, where the app offers it, its sound) to the device.
    case mirrorScreen(CastDevice)
    /// Mirror one window the desktop lets the user pick (the screen-cast portal's chooser).
    case mirrorWindow(CastDevice)
    /// Make the device a second screen: the desktop adds a monitor for it,
    /// onto which windows can be moved, removed when the stream ends.
    case extendScreen(CastDevice)
    /// Send this computer's sound to the device (a speaker, a group, a TV).
    case sendSound(CastDevice)
    /// Play or pause the session's media.
    case togglePlayback
    /// Stop the session's media.
    case stopMedia
    /// Stop what the app streams and end the session.
    case stopCasting
    /// Leave: the app closes the tray and exits.
    case quit
}

/// What the app streams now, as the tray shows it.
public struct TrayCasting: Sendable, Hashable {
    /// What is streamed.
    public enum Kind: Sendable, Hashable {
        /// The screen.
        case screen
        /// One window.
        case window
        /// A second screen the desktop made for the device.
        case extendedScreen
        /// This computer's sound.
        case sound
    }

    /// What is streamed.
    public var kind: Kind
    /// The device it goes to, as the user knows it.
    public var deviceName: String
    /// Whether the stream has started (`false` while it is being set up).
    public var isStarted: Bool

    /// Creates a description of what the app streams.
    public init(kind: Kind, deviceName: String, isStarted: Bool) {
        self.kind = kind
        self.deviceName = deviceName
        self.isStarted = isStarted
    }

    /// "Mirroring the screen to Kitchen", "Starting to send sound to Kitchen…",
    /// "Extending the desktop to Kitchen".
    public var label: String {
        let (doing, verb, what) =
            switch self.kind {
            case .screen: ("Mirroring", "mirror", "the screen")
            case .window: ("Mirroring", "mirror", "a window")
            case .extendedScreen: ("Extending", "extend", "the desktop")
            case .sound: ("Sending", "send", "this computer's sound")
            }
        return self.isStarted
            ? "\(doing) \(what) to \(self.deviceName)" : "Starting to \(verb) \(what) to \(self.deviceName)…"
    }
}
