import CastDBus
import CastRemoteDisplay

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What keeps a PipeWire screen-cast stream going — the portal's session,
/// a virtual monitor — closed when its grabber is.
protocol ScreenCastOwner: AnyObject, Sendable {
    /// Ends the share (and takes a virtual monitor away); idempotent.
    func close()
}

extension ScreenCastPortal: ScreenCastOwner {}

/// The TV as a second screen (``CaptureSource/virtualMonitor(_:)``): a
/// monitor the desktop makes for the cast, streamed through PipeWire, in
/// the first way this desktop offers — its portal's virtual source type
/// (the ScreenCast interface's type 4, version 4), mutter's own screen
/// cast on GNOME (``MutterVirtualMonitor``; GNOME 43's portal has no
/// virtual type), a headless output on sway (``SwayVirtualOutput``).
enum VirtualMonitor {
    /// Makes the monitor at `size` and opens its stream.
    static func open(
        size: RemoteDisplayConfiguration.Resolution, configuration: ScreenCaptureConfiguration,
        isCancelled: () -> Bool
    ) throws(CaptureError) -> PipeWireGrabber {
        let deadline = ContinuousClock.now + configuration.portalTimeout
        let fixed = (width: size.width, height: size.height)
        // One connection for the portal's calls, one for mutter's and the permission store's.
        let portal = try? ScreenCastPortal(busAddress: configuration.busAddress)
        let bus = try? SessionBus(address: configuration.busAddress)
        if let portal, portal.offersVirtualMonitors() {
            let grant = try portal.start(
                showsCursor: configuration.showsCursor, restoreToken: nil, virtual: true,
                timeout: configuration.portalTimeout, isCancelled: isCancelled)
            return try PipeWireGrabber(
                remote: grant.pipeWireRemote, nodeID: grant.nodeID, frameRate: configuration.frameRate, size: fixed,
                owner: portal)
        }
        if let bus, MutterVirtualMonitor.isAvailable(on: bus) {
            let monitor = try MutterVirtualMonitor(
                bus: bus, showsCursor: configuration.showsCursor, until: deadline, isCancelled: isCancelled)
            let remote = try Self.pipeWireRemote(configuration.pipeWireRemote, owner: monitor)
            return try PipeWireGrabber(
                remote: remote, nodeID: monitor.nodeID, frameRate: configuration.frameRate, size: fixed,
                owner: monitor)
        }
        if let socket = configuration.swaySocket ?? Self.environment("SWAYSOCK") {
            guard let portal, let bus else {
                throw CaptureError(.portalUnavailable, "no D-Bus session bus to reach the screen-cast portal")
            }
            let (grant, output) = try SwayVirtualOutput.open(
                size: size, socket: socket, portal: portal, store: PortalPermissionStore(bus: bus),
                configuration: configuration, isCancelled: isCancelled)
            return try PipeWireGrabber(
                remote: grant.pipeWireRemote, nodeID: grant.nodeID, frameRate: configuration.frameRate, owner: output)
        }
        throw CaptureError(
            .virtualMonitorUnavailable,
            "this desktop makes no second screen for a cast: extending works on GNOME, on sway, and with a "
                + "screen-cast portal that offers virtual monitors; mirror a screen instead (without --extend)")
    }

    /// A connection to the PipeWire daemon at `path`, or the user's own:
    /// `PIPEWIRE_REMOTE` when it is a path, else `pipewire-0` (or
    /// `PIPEWIRE_REMOTE`'s name) in `PIPEWIRE_RUNTIME_DIR` or `XDG_RUNTIME_DIR`.
    private static func pipeWireRemote(_ path: String?, owner: any ScreenCastOwner) throws(CaptureError) -> Int32 {
        let name = Self.environment("PIPEWIRE_REMOTE") ?? "pipewire-0"
        let directory = Self.environment("PIPEWIRE_RUNTIME_DIR") ?? Self.environment("XDG_RUNTIME_DIR") ?? ""
        let socket = path ?? (name.hasPrefix("/") ? name : directory + "/" + name)
        switch UnixSocket.connect(to: socket) {
        case .success(let descriptor): return descriptor
        case .failure(let failure):
            owner.close()
            throw CaptureError(.pipeWireUnavailable, "cannot reach PipeWire at \(socket): \(failure)")
        }
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
