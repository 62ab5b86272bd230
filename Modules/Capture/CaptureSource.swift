/// What a ``ScreenCapture`` shows: on X11 the screen, a monitor or a
/// window; on Wayland whatever the user picks in the desktop's
/// screen-sharing dialog (``portal``).
public enum CaptureSource: Sendable, Hashable, CustomStringConvertible {
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

    /// What this session's desktop shares: ``portal`` in a Wayland
    /// session (`XDG_SESSION_TYPE=wayland`, or `WAYLAND_DISPLAY` set), where
    /// X11 reads only Xwayland's windows over a black root; else the X ``screen``.
    public static func forCurrentSession(environment: [String: String]) -> CaptureSource {
        if environment["XDG_SESSION_TYPE"] == "wayland" || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            return .portal
        }
        return .screen
    }

    public var description: String {
        switch self {
        case .screen: "screen"
        case .output(let name): "output \(name)"
        case .window(let id): "window 0x\(String(id, radix: 16))"
        case .portal: "portal"
        }
    }
}
