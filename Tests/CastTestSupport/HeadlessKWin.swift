import Foundation

/// KDE Plasma's compositor for a test: kwin_wayland 5.27 on its virtual
/// backend (no GPU: Mesa's surfaceless EGL), with its Xwayland for X
/// programs, on a ``ScreenCastDesktop``'s bus and PipeWire, and KDE's
/// screen-cast portal — xdg-desktop-portal 1.16 with
/// xdg-desktop-portal-kde 5.27 and the permission store — beside it.
///
/// KWin's virtual outputs never tell its screen-cast plugin that they
/// painted (only DRM and nested-Wayland outputs emit `outputChange`, which
/// records an output's frame: kwin 5.27.5 src/plugins/screencast/
/// screencastmanager.cpp), so a share of the whole virtual screen starts
/// and delivers nothing; a window's share is driven by the window's own
/// damage and works. So a test shares a window: ``windowID(titled:)``
/// asks KWin (through a script) for its id, and ``grant(restoreToken:window:)``
/// stores a grant of it as an earlier share would have, so a share with
/// that token opens without KDE's dialog. ../shared/peers.md, "GNOME and
/// KDE, headless", says how each part runs here.
public final class HeadlessKWin: Sendable {
    static let kwin = "/usr/bin/kwin_wayland"
    static let portalBackend = "/usr/lib/x86_64-linux-gnu/libexec/xdg-desktop-portal-kde"

    /// Whether kwin_wayland, Xwayland and KDE's portal are installed (`make setup`).
    public static var isAvailable: Bool {
        [Self.kwin, Self.portalBackend, "/usr/bin/Xwayland", "/usr/libexec/xdg-permission-store"]
            .allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }

    /// KWin's Xwayland display (`:1`…), on which this process may draw.
    public let xDisplay: String
    private let bus: String
    private let log: URL
    private let directory: URL
    private let daemons: [DaemonProcess]

    private init(xDisplay: String, bus: String, log: URL, directory: URL, daemons: [DaemonProcess]) {
        self.xDisplay = xDisplay
        self.bus = bus
        self.log = log
        self.directory = directory
        self.daemons = daemons
    }

    /// Runs `body` with KWin (one `width × height` virtual output) and the
    /// portal started on `desktop`; stops them after.
    public static func with<Result>(
        on desktop: ScreenCastDesktop, width: Int, height: Int, _ body: (HeadlessKWin) async throws -> Result
    ) async throws -> Result {
        let kwin = try await Self.start(on: desktop, width: width, height: height)
        do {
            let result = try await body(kwin)
            await kwin.stop()
            return result
        } catch {
            await kwin.stop()
            throw error
        }
    }

    private static func start(on desktop: ScreenCastDesktop, width: Int, height: Int) async throws -> HeadlessKWin {
        let socket = "wl-cast-\(UUID().uuidString.prefix(8))"
        let environment = desktop.environment.merging([
            "XDG_CURRENT_DESKTOP": "KDE", "XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": socket,
            "QT_QPA_PLATFORM": "wayland",
        ]) { _, new in new }
        // Debian's kwin_wayland carries cap_sys_resource=ep, which fails to
        // start where that capability is not in the bounding set; a copy has none.
        let copy = desktop.directory.appendingPathComponent("kwin_wayland")
        try FileManager.default.copyItem(atPath: Self.kwin, toPath: copy.path)
        let log = desktop.directory.appendingPathComponent("kwin.log")
        var daemons = [
            try DaemonProcess(
                copy.path,
                [
                    "--virtual", "--width", "\(width)", "--height", "\(height)", "--socket", socket, "--xwayland",
                    "--no-lockscreen", "--no-global-shortcuts", "--no-kactivities",
                ], environment: environment, errorLog: log)
        ]
        do {
            var xDisplay: String?
            guard
                await DaemonProcess.wait(
                    for: .seconds(20),
                    until: {
                        // Started, and accepting clients on its socket.
                        xDisplay = Self.xwayland(startedBy: daemons[0].pid).flatMap { display in
                            TestBusDaemon.accepts("/tmp/.X11-unix/X\(display.dropFirst())") ? display : nil
                        }
                        return xDisplay != nil || daemons[0].hasExited
                    }), let xDisplay
            else { throw TestDaemonError.didNotStart("kwin_wayland (virtual) started no Xwayland within 20 s") }
            for daemon in ["/usr/libexec/xdg-permission-store", Self.portalBackend, "/usr/libexec/xdg-desktop-portal"] {
                daemons.append(try DaemonProcess(daemon, [], environment: environment))
            }
            let names = [
                "org.freedesktop.portal.Desktop", "org.freedesktop.impl.portal.desktop.kde",
                "org.freedesktop.impl.portal.PermissionStore",
            ]
            guard
                await DaemonProcess.wait(
                    for: .seconds(20),
                    until: { names.allSatisfy { TestBusDaemon.hasOwner($0, on: desktop.busAddress) } })
            else { throw TestDaemonError.didNotStart("xdg-desktop-portal with the KDE backend") }
            return HeadlessKWin(
                xDisplay: xDisplay, bus: desktop.busAddress, log: log, directory: desktop.directory, daemons: daemons)
        } catch {
            for daemon in daemons.reversed() { await daemon.stop() }
            throw error
        }
    }

    /// The id KWin gives the window titled `title` (its `internalId`, a
    /// braced UUID, which KDE's portal names windows by), once KWin
    /// manages it: a KWin script prints each window's, read from KWin's log.
    public func windowID(titled title: String) async throws -> String {
        var found: String?
        for attempt in 0..<50 where found == nil {
            let script = self.directory.appendingPathComponent("windows-\(attempt).js")
            try Data(
                """
                workspace.clientList().forEach(function (w) { print("CASTWINDOW " + w.internalId + " " + w.caption); });
                """.utf8
            ).write(to: script)
            try self.call("/Scripting", "org.kde.kwin.Scripting.loadScript", [script.path, "cast-windows-\(attempt)"])
            try self.call("/Scripting", "org.kde.kwin.Scripting.start", [])
            _ = await DaemonProcess.wait(for: .milliseconds(500)) {
                found = Self.window(titled: title, in: (try? String(contentsOf: self.log, encoding: .utf8)) ?? "")
                return found != nil
            }
        }
        guard let found else { throw TestDaemonError.requestFailed("KWin lists no window titled \(title)") }
        return found
    }

    /// Stores in the permission store a grant of the window `window` (from
    /// ``windowID(titled:)``) under `restoreToken` (a UUID), in
    /// xdg-desktop-portal-kde 5.27's restore format: `("KDE", 1, <ay>)`, the
    /// bytes a QDataStream of `{"outputs": [], "windows": [window]}`
    /// (src/screencast.cpp), stored as the portal's front end stores an
    /// earlier share's (xdg-desktop-portal 1.16 src/screen-cast.c: `(suv)`,
    /// the permission "yes" for the app id, "" outside a sandbox).
    public func grant(restoreToken: String, window: String) throws {
        let bytes = Self.restorePayload(windows: [window]).map { "0x" + String($0, radix: 16) }
        try self.call(
            "/org/freedesktop/impl/portal/PermissionStore", "org.freedesktop.impl.portal.PermissionStore.Set",
            [
                "screencast", "true", restoreToken, "{'': ['yes']}",
                "<('KDE', uint32 1, <@ay [\(bytes.joined(separator: ", "))]>)>",
            ],
            destination: "org.freedesktop.impl.portal.PermissionStore")
    }

    /// Stops KDE's portal backend, which ends its shares, as a desktop that stops sharing.
    public func stopSharing() async {
        await self.daemons[2].stop()
    }

    private func stop() async {
        for daemon in self.daemons.reversed() { await daemon.stop() }
    }

    /// A QVariantMap `{"outputs": QVariantList [], "windows": QStringList windows}`
    /// in QDataStream's Qt 5.15 form: big-endian counts, strings as UTF-16BE
    /// with their byte length, each variant its type id (9 a list of
    /// variants, 11 a list of strings) and a null flag; Qt 5 writes a map's
    /// entries from the last key to the first.
    static func restorePayload(windows: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        func number(_ value: UInt32) { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
        func string(_ text: String) {
            let units = Array(text.utf16)
            number(UInt32(units.count * 2))
            for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xff)] }
        }
        number(2)
        string("windows")
        number(11)
        bytes.append(0)
        number(UInt32(windows.count))
        windows.forEach(string)
        string("outputs")
        number(9)
        bytes.append(0)
        number(0)
        return bytes
    }

    /// The id in a `CASTWINDOW {id} title` line of `log` naming `title`.
    private static func window(titled title: String, in log: String) -> String? {
        for line in log.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3)
            if words.count == 4, words[1] == "CASTWINDOW", words[3] == title { return String(words[2]) }
        }
        return nil
    }

    private func call(
        _ path: String, _ method: String, _ arguments: [String], destination: String = "org.kde.KWin"
    ) throws {
        let output = try CommandOutput.waiting(
            for: [
                "/usr/bin/gdbus", "call", "--address", self.bus, "--dest", destination, "--object-path", path,
                "--method", method,
            ] + arguments,
            timeLimit: .seconds(10))
        guard output.status == 0 else { throw TestDaemonError.requestFailed("\(method): \(output.text)") }
    }

    /// The display of the Xwayland that the process `parent` started.
    private static func xwayland(startedBy parent: pid_t) -> String? {
        for process in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(process) != nil {
            guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
                status.split(separator: "\n").contains("PPid:\t\(parent)"),
                let bytes = FileManager.default.contents(atPath: "/proc/\(process)/cmdline")
            else { continue }
            let arguments = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first?.hasSuffix("Xwayland") == true,
                let display = arguments.first(where: { $0.hasPrefix(":") })
            {
                return display
            }
        }
        return nil
    }
}
