/// What a ``ScreenCapture`` captures and how often.
public struct ScreenCaptureConfiguration: Sendable, Hashable {
    /// For X11 sources: the X display, e.g. `:0`; `nil` reads the `DISPLAY` environment variable.
    public var display: String?
    /// The screen, a monitor or a window. Default ``CaptureSource/screen``.
    public var source: CaptureSource
    /// Whether the cursor is drawn into the pictures. Default `true`.
    public var showsCursor: Bool
    /// Pictures per second while something changes, 1…60. Default 30.
    public var frameRate: Int
    /// Pictures per second while nothing changes, 1…``frameRate``: enough
    /// that the receiver never starves, little enough that a still screen
    /// costs almost nothing. Default 1.
    public var idleFrameRate: Int
    /// For ``CaptureSource/portal``: the D-Bus session bus the portal is
    /// on; `nil` reads `DBUS_SESSION_BUS_ADDRESS`.
    public var busAddress: String?
    /// For ``CaptureSource/portal``: the ``ScreenCapture/restoreToken`` of
    /// an earlier capture, so the desktop shares the same source again
    /// without asking (portal version 4 and later). Default `nil`: ask.
    public var restoreToken: String?
    /// For ``CaptureSource/portal``: how long the user has to answer the
    /// screen-sharing dialog (and for a virtual monitor, how long the desktop
    /// may take to make it). Default 2 minutes.
    public var portalTimeout: Duration
    /// For ``CaptureSource/virtualMonitor(_:)`` on GNOME, where mutter
    /// streams into the user's PipeWire: that PipeWire's socket; `nil`
    /// finds it as libpipewire does (`PIPEWIRE_REMOTE`, else `pipewire-0` in
    /// `XDG_RUNTIME_DIR`).
    public var pipeWireRemote: String?
    /// For ``CaptureSource/virtualMonitor(_:)`` on sway: its IPC socket;
    /// `nil` reads `SWAYSOCK`.
    public var swaySocket: String?

    /// Creates a configuration.
    public init(
        display: String? = nil, source: CaptureSource = .screen, showsCursor: Bool = true, frameRate: Int = 30,
        idleFrameRate: Int = 1, busAddress: String? = nil, restoreToken: String? = nil,
        portalTimeout: Duration = .seconds(120), pipeWireRemote: String? = nil, swaySocket: String? = nil
    ) {
        self.display = display
        self.source = source
        self.showsCursor = showsCursor
        self.frameRate = frameRate
        self.idleFrameRate = idleFrameRate
        self.busAddress = busAddress
        self.restoreToken = restoreToken
        self.portalTimeout = portalTimeout
        self.pipeWireRemote = pipeWireRemote
        self.swaySocket = swaySocket
    }

    func validated() throws(CaptureError) -> Self {
        guard (1...60).contains(self.frameRate) else {
            throw CaptureError(.invalidConfiguration, "frame rate \(self.frameRate) is outside 1…60")
        }
        guard (1...self.frameRate).contains(self.idleFrameRate) else {
            throw CaptureError(
                .invalidConfiguration, "idle frame rate \(self.idleFrameRate) is outside 1…\(self.frameRate)")
        }
        if case .virtualMonitor(let size) = self.source,
            !(320...7_680).contains(size.width) || !(240...4_320).contains(size.height)
        {
            throw CaptureError(.invalidConfiguration, "a virtual monitor of \(size) is outside 320x240…7680x4320")
        }
        guard self.portalTimeout > .zero else {
            throw CaptureError(.invalidConfiguration, "portal timeout \(self.portalTimeout) is not positive")
        }
        return self
    }
}
