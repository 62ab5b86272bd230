public import CastRemoteDisplay

/// What a ``ScreenCapture`` shows: on X11 the screen, a monitor or a
/// window; on Wayland whatever the user picks in the desktop's
/// screen-sharing dialog (``portal``).
public enum CaptureSource: Sendable, Hashable, LosslessStringConvertible {
    /// The whole X screen (every monitor on it).
    case screen
    /// One monitor, by its RandR name: an output such as `HDMI-1`, or a
    /// monitor defined with `xrandr --setmonitor`.
    case output(String)
    /// One window, by its X id (`xwininfo` shows it), followed as it moves
    /// and resizes. What is drawn over it on screen is captured too.
    case window(UInt32)
    /// The monitor or window the user picks in the desktop's screen-sharing
    /// dialog, through the XDG desktop portal (`org.freedesktop.portal.ScreenCast`)
    /// and PipeWire: how Wayland desktops (GNOME, KDE, wlroots) share the
    /// screen. ``ScreenCaptureConfiguration/restoreToken`` skips the dialog
    /// the second time.
    case portal
    /// A new monitor of this size, made by the desktop for the cast and
    /// removed after it: the TV as a second screen, onto which windows can
    /// be moved. On GNOME (mutter) and sway, and with a portal that offers
    /// virtual monitors; `CaptureError.Code.virtualMonitorUnavailable` elsewhere.
    case virtualMonitor(RemoteDisplayConfiguration.Resolution)

    /// What this session's desktop shares: ``portal`` in a Wayland
    /// session (`XDG_SESSION_TYPE=wayland`, or `WAYLAND_DISPLAY` set), where
    /// X11 reads only Xwayland's windows over a black root; else the X ``screen``.
    public static func forCurrentSession(environment: [String: String]) -> CaptureSource {
        if environment["XDG_SESSION_TYPE"] == "wayland" || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            return .portal
        }
        return .screen
    }

    /// Whether this session's desktop is one that makes a ``virtualMonitor(_:)``
    /// for a cast, as its `environment` tells: GNOME (`XDG_CURRENT_DESKTOP`
    /// names it) or sway (`SWAYSOCK` is set). A portal that offers virtual
    /// monitors on another desktop is found only when a capture asks it.
    public static func desktopMakesVirtualMonitors(environment: [String: String]) -> Bool {
        let desktops = (environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":")
        return desktops.contains("GNOME") || !(environment["SWAYSOCK"] ?? "").isEmpty
    }

    /// Reads what ``description`` writes: `screen`, `portal`, `output NAME`,
    /// `window ID` with the X id in hexadecimal (`0x3a00007`) or decimal, or
    /// `virtual WIDTHxHEIGHT`; `nil` for anything else.
    public init?(_ description: String) {
        let words = description.split(separator: " ", maxSplits: 1).map(String.init)
        switch (words.first, words.count) {
        case ("screen", 1): self = .screen
        case ("portal", 1): self = .portal
        case ("output", 2): self = .output(words[1])
        case ("virtual", 2):
            guard let size = RemoteDisplayConfiguration.Resolution(words[1]) else { return nil }
            self = .virtualMonitor(size)
        case ("window", 2):
            let text = words[1]
            let hexadecimal = text.lowercased().hasPrefix("0x")
            guard let id = UInt32(hexadecimal ? String(text.dropFirst(2)) : text, radix: hexadecimal ? 16 : 10) else {
                return nil
            }
            self = .window(id)
        default: return nil
        }
    }

    /// `screen`, `portal`, `output NAME`, `window 0x3a00007` or `virtual 1920x1080`.
    public var description: String {
        switch self {
        case .screen: "screen"
        case .output(let name): "output \(name)"
        case .window(let id): "window 0x\(String(id, radix: 16))"
        case .portal: "portal"
        case .virtualMonitor(let size): "virtual \(size)"
        }
    }
}
