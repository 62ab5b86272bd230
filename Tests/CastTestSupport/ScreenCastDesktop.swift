public import Foundation

/// What a Wayland desktop offers a screen-sharing app, made of real
/// daemons for a test: a D-Bus session bus (`dbus-daemon`), PipeWire with
/// WirePlumber (the session manager that links a capture stream to the
/// node it names), and — started per test — the screen-cast portal's
/// stand-in (`screencast_portal.py`). All in one temporary runtime
/// directory; stopped when the test is done.
public final class ScreenCastDesktop: Sendable {
    public let directory: URL
    /// The session bus's address, for `ScreenCaptureConfiguration.busAddress`.
    public var busAddress: String { TestBusDaemon.address(in: self.directory) }
    /// PipeWire's socket (which does not exist without PipeWire).
    public var pipeWireSocket: String { "\(self.directory.path)/pipewire-0" }
    /// PipeWire's pulse server's address for libpulse (`PULSE_SERVER`, `pactl --server`), when started.
    public var pulseServerAddress: String { "unix:\(self.directory.path)/pulse/native" }
    /// What the desktop's daemons run with: its runtime directory, home and
    /// configuration, and its bus as the session and system bus.
    public let environment: [String: String]
    private let daemons: [DaemonProcess]

    private init(directory: URL, environment: [String: String], daemons: [DaemonProcess]) {
        self.directory = directory
        self.environment = environment
        self.daemons = daemons
    }

    /// Starts the bus and, unless `pipeWire` is false, PipeWire and WirePlumber, and with
    /// `pulseServer` PipeWire's pulse server too (`pipewire-pulse`, at ``pulseServerAddress``),
    /// as most desktops now run it.
    public static func start(pipeWire: Bool = true, pulseServer: Bool = false) async throws -> ScreenCastDesktop {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cast-desktop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let bus = TestBusDaemon.address(in: directory)
        let environment = [
            "XDG_RUNTIME_DIR": directory.path, "PIPEWIRE_RUNTIME_DIR": directory.path, "HOME": directory.path,
            "XDG_CONFIG_HOME": directory.path + "/config", "XDG_STATE_HOME": directory.path + "/state",
            // The test's bus as the system bus too: RTKit, logind and BlueZ,
            // which PipeWire and WirePlumber look for there, are absent.
            "DBUS_SESSION_BUS_ADDRESS": bus, "DBUS_SYSTEM_BUS_ADDRESS": bus,
        ]
        try Self.writeWirePlumberConfiguration(in: directory.appendingPathComponent("config/wireplumber"))
        var daemons: [DaemonProcess] = []
        func started(_ daemon: DaemonProcess, socket: String) async throws {
            daemons.append(daemon)
            guard await DaemonProcess.wait(for: .seconds(10), until: { TestBusDaemon.accepts(socket) })
            else {
                for daemon in daemons { await daemon.stop() }
                throw TestDaemonError.didNotStart(daemon.name)
            }
        }
        daemons.append(try await TestBusDaemon.start(in: directory))
        if pipeWire {
            try await started(
                DaemonProcess("pipewire", [], environment: environment), socket: directory.path + "/pipewire-0")
            daemons.append(try DaemonProcess("wireplumber", [], environment: environment))
            if pulseServer {
                try await started(
                    DaemonProcess("pipewire-pulse", [], environment: environment),
                    socket: directory.path + "/pulse/native")
            }
        }
        return ScreenCastDesktop(directory: directory, environment: environment, daemons: daemons)
    }

    /// WirePlumber's own configuration (`XDG_CONFIG_HOME` is the test's):
    /// no monitor of the machine's sound cards, cameras or Bluetooth, so the
    /// test's PipeWire has only the nodes the test makes, and never opens a
    /// device the desktop's own sound server holds. (WirePlumber 0.4 reads
    /// `main.lua.d` and `bluetooth.lua.d` fragments from every configuration
    /// directory; a later number overrides `50-*-config.lua`.)
    private static func writeWirePlumberConfiguration(in directory: URL) throws {
        for (folder, monitors) in [
            ("main.lua.d", ["alsa_monitor", "v4l2_monitor", "libcamera_monitor"]),
            ("bluetooth.lua.d", ["bluez_monitor"]),
        ] {
            let fragments = directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: fragments, withIntermediateDirectories: true)
            let text = monitors.map { "\($0).enabled = false\n" }.joined()
            try Data(text.utf8).write(to: fragments.appendingPathComponent("90-cast-tests.lua"))
        }
    }

    /// Starts the portal stand-in granting `node` (`answer`: `grant` or
    /// `cancel`; `sourceTypes` its `AvailableSourceTypes`, 7 for one that makes virtual monitors), waits until it owns its bus name, and returns it with
    /// the file it logs its calls to.
    public func startPortal(
        node: UInt32, width: Int, height: Int, answer: String = "grant", sourceTypes: UInt32 = 3
    ) async throws
        -> ScreenCastPortalStandIn
    {
        let log = self.directory.appendingPathComponent("portal-\(UUID().uuidString).jsonl")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "screencast_portal.py")
        // Debian's own Python: python3-dbus and python3-gi are installed for it
        // (a pyenv or venv python3 earlier on PATH would not see them).
        let daemon = try DaemonProcess(
            "/usr/bin/python3",
            [
                script.path, "--bus", self.busAddress, "--log", log.path, "--node", "\(node)", "--width", "\(width)",
                "--height", "\(height)", "--pipewire-socket", self.pipeWireSocket, "--answer", answer,
                "--source-types", "\(sourceTypes)",
            ])
        let portal = ScreenCastPortalStandIn(daemon: daemon, log: log)
        guard await DaemonProcess.wait(for: .seconds(10), until: { !portal.calls().isEmpty }) else {
            await daemon.stop()
            throw TestDaemonError.didNotStart("screencast_portal.py")
        }
        return portal
    }

    public func stop() async {
        for daemon in self.daemons.reversed() { await daemon.stop() }
        try? FileManager.default.removeItem(at: self.directory)
    }

    public static func with<Result>(
        pipeWire: Bool = true, _ body: (ScreenCastDesktop) async throws -> Result
    ) async throws -> Result {
        let desktop = try await Self.start(pipeWire: pipeWire)
        do {
            let result = try await body(desktop)
            await desktop.stop()
            return result
        } catch {
            await desktop.stop()
            throw error
        }
    }
}

/// The running portal stand-in and what it was asked.
public struct ScreenCastPortalStandIn: Sendable {
    public let daemon: DaemonProcess
    public let log: URL

    /// Every line the stand-in logged, the first being `{"ready": true}`.
    public func calls() -> [[String: any Sendable]] {
        guard let text = try? String(contentsOf: self.log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: any Sendable]
        }
    }

    public func stop() async {
        await self.daemon.stop()
    }
}
