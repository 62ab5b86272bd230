import Foundation

/// The real screen-cast portal of a wlroots desktop, for a test:
/// xdg-desktop-portal 1.16 (Debian's) with xdg-desktop-portal-wlr as its
/// backend — built by `make setup` from Debian's source with one change
/// (scripts/patches/xdg-desktop-portal-wlr-shm-without-gpu.patch), since
/// Debian 12's binary cannot cast without a GPU — on a ``ScreenCastDesktop``'s
/// bus and PipeWire, sharing a ``HeadlessSway``'s output `HEADLESS-1`
/// without asking (`chooser_type=none`), as a desktop configured to share
/// its only screen does; its permission store (xdg-permission-store) keeps
/// the grants. ../shared/peers.md, "A real Wayland desktop,
/// headless", says how each part runs here.
public final class SwayScreenCastPortal: Sendable {
    /// Where `make setup` builds the patched backend.
    public static let backend = "/usr/local/libexec/cast-tests/xdg-desktop-portal-wlr"
    /// The portal's front end, from Debian's package.
    public static let frontEnd = "/usr/libexec/xdg-desktop-portal"
    /// Where the front end keeps grants (Debian's xdg-desktop-portal depends on it).
    public static let permissionStore = "/usr/libexec/xdg-permission-store"
    /// Whether all three are installed (`make setup`).
    public static var isAvailable: Bool {
        [Self.backend, Self.frontEnd, Self.permissionStore].allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }

    private let daemons: [DaemonProcess]

    private init(daemons: [DaemonProcess]) {
        self.daemons = daemons
    }

    /// Starts the backend on `sway`'s Wayland socket, then the front end,
    /// on `desktop`'s bus; returns once the front end owns
    /// `org.freedesktop.portal.Desktop`.
    public static func start(on desktop: ScreenCastDesktop, sharing sway: HeadlessSway) async throws
        -> SwayScreenCastPortal
    {
        let configuration = desktop.directory.appendingPathComponent("config/xdg-desktop-portal-wlr")
        try FileManager.default.createDirectory(at: configuration, withIntermediateDirectories: true)
        try Data("[screencast]\nchooser_type=none\noutput_name=HEADLESS-1\n".utf8).write(
            to: configuration.appendingPathComponent("config"))
        let environment = desktop.environment.merging([
            "WAYLAND_DISPLAY": "\(sway.runtimeDirectory)/\(sway.waylandDisplay)", "XDG_CURRENT_DESKTOP": "sway",
            "XDG_SESSION_TYPE": "wayland",
        ]) { _, new in new }
        // The backend first (stopSharing stops it), then the permission store the front end keeps grants in.
        var daemons = [try DaemonProcess(Self.backend, ["--loglevel", "INFO"], environment: environment)]
        do {
            for daemon in [Self.permissionStore, Self.frontEnd] {
                daemons.append(try DaemonProcess(daemon, [], environment: environment))
            }
        } catch {
            for daemon in daemons.reversed() { await daemon.stop() }
            throw error
        }
        let portal = SwayScreenCastPortal(daemons: daemons)
        let owned = await DaemonProcess.wait(for: .seconds(10)) {
            [
                "org.freedesktop.portal.Desktop", "org.freedesktop.impl.portal.desktop.wlr",
                "org.freedesktop.impl.portal.PermissionStore",
            ].allSatisfy { TestBusDaemon.hasOwner($0, on: desktop.busAddress) }
        }
        guard owned, !daemons.contains(where: \.hasExited) else {
            await portal.stop()
            throw TestDaemonError.didNotStart("xdg-desktop-portal with the wlr backend")
        }
        return portal
    }

    /// Runs `body` with sway started headless for a new unprivileged user
    /// (its one output `output` big), this process admitted to its
    /// Xwayland, and the portal started on `desktop` sharing it; stops them after.
    public static func with(
        on desktop: ScreenCastDesktop, output: (width: Int, height: Int),
        _ body: (HeadlessSway, SwayScreenCastPortal) async throws -> Void
    ) async throws {
        let user = try UnprivilegedUser.make()
        defer { user.remove() }
        try await HeadlessSway.with(as: user, output: output) { sway in
            try sway.admitThisProcessToXwayland(as: user)
            let portal = try await Self.start(on: desktop, sharing: sway)
            do {
                try await body(sway, portal)
            } catch {
                await portal.stop()
                throw error
            }
            await portal.stop()
        }
    }

    /// Stops the backend, which ends any share it gives, as a compositor or
    /// a user that stops sharing does.
    public func stopSharing() async {
        await self.daemons[0].stop()
    }

    public func stop() async {
        for daemon in self.daemons.reversed() { await daemon.stop() }
    }
}
