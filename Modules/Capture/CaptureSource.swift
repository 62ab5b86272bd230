/// What an X11 ``ScreenCapture`` shows.
public enum CaptureSource: Sendable, Hashable, CustomStringConvertible {
    /// The whole X screen (every monitor on it).
    case screen
    /// One monitor, by its RandR name: an output such as `HDMI-1`, or a
    /// monitor defined with `xrandr --setmonitor`.
    case output(String)
    /// One window, by its X id (`xwininfo` shows it), followed as it moves
    /// and resizes. What is drawn over it on screen is captured too.
    case window(UInt32)

    public var description: String {
        switch self {
        case .screen: "screen"
        case .output(let name): "output \(name)"
        case .window(let id): "window 0x\(String(id, radix: 16))"
        }
    }
}
