import Foundation

/// GNOME's compositor for a test: mutter 43 headless with one virtual
/// monitor (no GPU: its surfaceless renderer, frames through memory), on a
/// ``ScreenCastDesktop``'s bus and PipeWire, with its Xwayland for X
/// programs, and GNOME's screen-cast portal — xdg-desktop-portal 1.16 with
/// xdg-desktop-portal-gnome 43 and the permission store — beside it. No
/// gnome-shell or gnome-settings-daemon is needed. Its dialog preselects
/// nothing, so ``grant(restoreToken:)`` stores a grant of the virtual
/// monitor in the permission store, as an earlier share would have, and a
/// share with that token opens without asking. ../shared/peers.md, "GNOME
/// and KDE, headless", says how each part runs here.
public final class HeadlessMutter: Sendable {
    /// Whether mutter and GNOME's portal are installed (`make setup`).
    public static var isAvailable: Bool {
        ["/usr/bin/mutter", "/usr/libexec/xdg-desktop-portal-gnome", "/usr/libexec/xdg-permission-store"]
            .allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }

    /// mutter's Xwayland display (`:1`…), on which this process may draw.
    public let xDisplay: String
    private let bus: String
    private let daemons: [DaemonProcess]

    private init(xDisplay: String, bus: String, daemons: [DaemonProcess]) {
        self.xDisplay = xDisplay
        self.bus = bus
        self.daemons = daemons
    }

    /// Runs `body` with mutter (a `width × height` virtual monitor) and the
    /// portal started on `desktop`; stops them after.
    public static func with<Result>(
        on desktop: ScreenCastDesktop, width: Int, height: Int, _ body: (HeadlessMutter) async throws -> Result
    ) async throws -> Result {
        let mutter = try await Self.start(on: desktop, width: width, height: height)
        do {
            let result = try await body(mutter)
            await mutter.stop()
            return result
        } catch {
            await mutter.stop()
            throw error
        }
    }

    private static func start(on desktop: ScreenCastDesktop, width: Int, height: Int) async throws -> HeadlessMutter {
        let socket = "wl-cast-\(UUID().uuidString.prefix(8))"
        let environment = desktop.environment.merging([
            "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": socket,
        ]) { _, new in new }
        var daemons = [
            try DaemonProcess(
                "/usr/bin/mutter",
                ["--headless", "--virtual-monitor", "\(width)x\(height)", "--wayland", "--wayland-display=\(socket)"],
                environment: environment)
        ]
        do {
            // mutter starts its Xwayland with an authority file in the runtime directory.
            var xwayland: (display: String, authority: String)?
            guard
                await DaemonProcess.wait(
                    for: .seconds(20),
                    until: {
                        xwayland = Self.xwayland(authorityIn: desktop.directory)
                        return xwayland != nil || daemons[0].hasExited
                    }), let xwayland
            else { throw TestDaemonError.didNotStart("mutter (headless) started no Xwayland within 20 s") }
            for daemon in ["/usr/libexec/xdg-permission-store", "/usr/libexec/xdg-desktop-portal-gnome"] {
                daemons.append(try DaemonProcess(daemon, [], environment: environment))
            }
            daemons.append(try DaemonProcess("/usr/libexec/xdg-desktop-portal", [], environment: environment))
            let names = [
                "org.freedesktop.portal.Desktop", "org.freedesktop.impl.portal.desktop.gnome",
                "org.freedesktop.impl.portal.PermissionStore",
            ]
            guard
                await DaemonProcess.wait(
                    for: .seconds(20),
                    until: {
                        names.allSatisfy { TestBusDaemon.hasOwner($0, on: desktop.busAddress) }
                    })
            else { throw TestDaemonError.didNotStart("xdg-desktop-portal with the GNOME backend") }
            // Xwayland admits the holders of mutter's cookie; this process draws without it.
            let admitted = try CommandOutput.waiting(
                for: ["/usr/bin/xhost", "+si:localuser:\(String(cString: getpwuid(getuid()).pointee.pw_name))"],
                environment: ["DISPLAY": xwayland.display, "XAUTHORITY": xwayland.authority], timeLimit: .seconds(10))
            guard admitted.status == 0 else { throw TestDaemonError.requestFailed("xhost: \(admitted.text)") }
            return HeadlessMutter(xDisplay: xwayland.display, bus: desktop.busAddress, daemons: daemons)
        } catch {
            for daemon in daemons.reversed() { await daemon.stop() }
            throw error
        }
    }

    /// Stores in the permission store a grant of the virtual monitor under
    /// `restoreToken` (a UUID), in xdg-desktop-portal-gnome 43's restore
    /// format `(xxa(uuv))`: created, last used, [(stream, source type, the
    /// monitor's id)].
    public func grant(restoreToken: String) throws {
        let now = Int(Date().timeIntervalSince1970)
        let data =
            "<('GNOME', uint32 1, <(int64 \(now), int64 \(now), "
            + "[(uint32 0, uint32 1, <'MetaVendor:MetaVirtualMonitor:0x00'>)])>)>"
        let output = try CommandOutput.waiting(
            for: [
                "/usr/bin/gdbus", "call", "--address", self.bus, "--dest",
                "org.freedesktop.impl.portal.PermissionStore", "--object-path",
                "/org/freedesktop/impl/portal/PermissionStore", "--method",
                "org.freedesktop.impl.portal.PermissionStore.Set", "screencast", "true", restoreToken,
                "{'': ['yes']}", data,
            ], timeLimit: .seconds(10))
        guard output.status == 0 else { throw TestDaemonError.requestFailed("PermissionStore.Set: \(output.text)") }
    }

    /// Stops GNOME's portal backend, which ends its shares, as a desktop that stops sharing.
    public func stopSharing() async {
        await self.daemons[2].stop()
    }

    private func stop() async {
        for daemon in self.daemons.reversed() { await daemon.stop() }
    }

    /// mutter's Xwayland whose authority file is in `directory`: its display and that file.
    private static func xwayland(authorityIn directory: URL) -> (display: String, authority: String)? {
        guard
            let authority = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
                .first(where: { $0.hasPrefix(".mutter-Xwaylandauth") })
        else { return nil }
        let path = directory.appendingPathComponent(authority).path
        for process in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(process) != nil {
            guard let bytes = FileManager.default.contents(atPath: "/proc/\(process)/cmdline") else { continue }
            let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("Xwayland") == true, arguments.contains(path),
                let display = arguments.first(where: { $0.hasPrefix(":") })
            {
                return (display, path)
            }
        }
        return nil
    }
}
