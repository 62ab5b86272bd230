import CastEmulator
import CastTestSupport
import Foundation
import Testing

/// `cast tray` on a session bus of the test's own, seen by a tray host and a
/// notification service written with python-dbus (scripts/interop/tray_host.py,
/// to the StatusNotifierItem, DBusMenu and Desktop Notifications
/// specifications): the host finds the item, reads its menu, picks "Mirror
/// screen" and the emulator's device, the emulator decodes the mirrored X
/// display, "Stop casting" ends it, and each step was notified.
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(if: TrayHostRequirements.areMet, "needs dbus-daemon, Xvfb and python3-dbus (make setup installs them)"))
struct CastTrayCommandTests {
    static let python = TrayHostRequirements.python

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/interop/tray_host.py").path

    /// The host's events, parsed.
    struct Host {
        let process: InteractiveProcess
        var seen = 0

        /// The next event (after those already taken) whose fields satisfy `matches`, within `timeout`.
        mutating func next(
            within timeout: Duration = .seconds(20), _ what: String, where matches: ([String: Any]) -> Bool
        ) async throws -> [String: Any] {
            let found = try await self.process.line(after: self.seen, within: timeout) { line in
                guard let event = Self.parse(line) else { return false }
                return matches(event)
            }
            guard let found, let event = Self.parse(found.line) else {
                throw HostError.noEvent(what, self.process.stdout.suffix(8).joined(separator: "\n"))
            }
            self.seen = found.index + 1
            return event
        }

        /// The revision of the last layout read.
        var lastRevision = 0

        /// Asks for the menu's layout; its root.
        mutating func layout() async throws -> [String: Any] {
            self.process.send("layout")
            let event = try await self.next("layout") {
                $0["event"] as? String == "layout" || $0["event"] as? String == "error"
            }
            guard let menu = event["menu"] as? [String: Any] else { throw HostError.noEvent("layout", "\(event)") }
            self.lastRevision = event["revision"] as? Int ?? 0
            return menu
        }

        /// Waits until the layout satisfies `condition`, asking again after each change; the last layout.
        mutating func layout(within timeout: Duration = .seconds(20), until condition: ([String: Any]) -> Bool)
            async throws -> [String: Any]
        {
            let deadline = ContinuousClock.now + timeout
            var menu = try await self.layout()
            while !condition(menu) {
                guard ContinuousClock.now < deadline else { throw HostError.noEvent("a menu that fits", "\(menu)") }
                _ = try? await self.next(within: .seconds(2), "a layout update") {
                    $0["event"] as? String == "layout-updated"
                }
                menu = try await self.layout()
            }
            return menu
        }

        mutating func click(_ id: Int) async throws {
            self.process.send("click \(id)")
            let event = try await self.next("click") {
                $0["event"] as? String == "clicked" || $0["event"] as? String == "error"
            }
            #expect(event["event"] as? String == "clicked", "\(event)")
        }

        static func parse(_ line: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    enum HostError: Error {
        case noEvent(String, String)
    }

    static func children(_ item: [String: Any]) -> [[String: Any]] {
        item["children"] as? [[String: Any]] ?? []
    }

    static func item(_ menu: [String: Any], _ label: String) -> [String: Any]? {
        Self.children(menu).first { $0["label"] as? String == label }
    }

    @Test func aTrayHostMirrorsTheScreenFromTheMenuAndStopsIt() async throws {
        try await Self.withTray { host, tray, emulator in
            try await Self.mirrorAndStop(host: &host, tray: tray, emulator: emulator)
        }
    }

    /// The device goes away while the screen is mirrored to it: the mirror
    /// notices its connection close (it used to stream on into the void),
    /// the user is told, and the menu offers mirroring again.
    @Test func aDeviceThatGoesAwayWhileMirroringIsNotified() async throws {
        try await Self.withTray { host, tray, emulator in
            let name = try await Self.mirrorTheFirstDevice(&host)
            let started = try await host.next(within: .seconds(30), "the started notification") {
                $0["event"] as? String == "notification"
            }
            #expect(started["summary"] as? String == "Mirroring the screen to \(name)", "\(started)")
            #expect(
                try await waitUntil(within: .seconds(20)) { (emulator.streamingReport?.video?.framesDecoded ?? 0) >= 3 }
            )
            await emulator.stop()
            let ended = try await host.next(within: .seconds(30), "the ended notification") {
                $0["event"] as? String == "notification"
            }
            // The tray's mirror notices the connection close and says so.
            #expect(ended["summary"] as? String == "Casting to \(name) failed", "\(ended)")
            let body = ended["body"] as? String ?? ""
            #expect(body.contains("lost the connection to") && body.contains("the device went away"), "\(body)")
            _ = try await host.layout { Self.item($0, "Stop casting")?["enabled"] as? Bool == false }
            tray.signal(SIGINT)
            #expect(try await tray.exit(within: .seconds(15)) == 0, "\(tray.stderr.joined(separator: "\n"))")
        }
    }

    /// Waits for the tray to register and list a device under "Mirror screen",
    /// and picks it; the device's name in the menu.
    private static func mirrorTheFirstDevice(_ host: inout Host) async throws -> String {
        _ = try await host.next("registered") { $0["event"] as? String == "registered" }
        let menu = try await host.layout { menu in
            Self.item(menu, "Mirror screen").map { Self.children($0).contains { $0["enabled"] as? Bool == true } }
                ?? false
        }
        let screen = try #require(Self.item(menu, "Mirror screen"))
        let target = try #require(Self.children(screen).first)
        let name = try #require(target["label"] as? String)
        try await host.click(try #require(target["id"] as? Int))
        return name
    }

    /// A device that cannot run the mirroring app: the failure is a
    /// notification with the stream's own error, and the menu offers the
    /// device again.
    @Test func aStreamThatFailsIsNotifiedWithItsReason() async throws {
        try await Self.withTray(applications: [EmulatedApplication.defaultMediaReceiver]) { host, tray, _ in
            let name = try await Self.mirrorTheFirstDevice(&host)
            let failed = try await host.next(within: .seconds(30), "the failure's notification") {
                $0["event"] as? String == "notification"
            }
            #expect(failed["summary"] as? String == "Casting to \(name) failed", "\(failed)")
            let body = failed["body"] as? String ?? ""
            print("tray: the failure notified: \(body)")
            #expect(body.contains("did not launch 0F5096E8") && body.contains("NOT_FOUND"), "\(body)")
            _ = try await host.layout { Self.item($0, "Mirror screen")?["enabled"] as? Bool == true }
            tray.signal(SIGINT)  // Ctrl-C leaves too
            #expect(try await tray.exit(within: .seconds(15)) == 0, "\(tray.stderr.joined(separator: "\n"))")
        }
    }

    /// Runs `body` with the host and `cast tray` on a bus of their own, an
    /// Xvfb display, and an emulator the tray knows by address.
    private static func withTray(
        applications: [EmulatedApplication] = EmulatedApplication.standard,
        _ body: (inout Host, InteractiveProcess, CastEmulator) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cast-tray-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        let bus = try await TestBusDaemon.start(in: folder)
        let address = TestBusDaemon.address(in: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await VirtualDisplay.with(width: 640, height: 360) { display in
            try await CastCommandLineTests.withEmulator(applications: applications) { emulator, device in
                var host = Host(
                    process: try InteractiveProcess(
                        [Self.python, Self.script], environment: ["DBUS_SESSION_BUS_ADDRESS": address]))
                _ = try await host.next("ready") { $0["event"] as? String == "ready" }
                var command = [CastCommandLineTests.executable("cast"), "tray", "--device", device, "--no-mdns"]
                var environment = ["DBUS_SESSION_BUS_ADDRESS": address, "DISPLAY": display.name]
                if let user = CastCommandLineTests.user {
                    command = try user.command(command)
                    environment = user.environment.merging(environment) { $1 }
                }
                let tray = try InteractiveProcess(command, environment: environment)
                do {
                    try await body(&host, tray, emulator)
                } catch {
                    Issue.record("tray's stderr:\n\(tray.stderr.joined(separator: "\n"))")
                    await tray.stop()
                    await host.process.stop()
                    throw error
                }
                await tray.stop()
                await host.process.stop()
            }
        }
        await bus.stop()
    }

    private static func mirrorAndStop(host: inout Host, tray: InteractiveProcess, emulator: CastEmulator) async throws {
        let registered = try await host.next("registered") { $0["event"] as? String == "registered" }
        #expect((registered["service"] as? String)?.hasPrefix("org.kde.StatusNotifierItem-") == true)
        host.process.send("properties")
        let properties = try #require(
            try await host.next("properties") { $0["event"] as? String == "properties" }["properties"]
                as? [String: Any])
        #expect(properties["Menu"] as? String == "/MenuBar")
        #expect(properties["IconName"] as? String == "cast")
        #expect(properties["ItemIsMenu"] as? Bool == true)

        // The emulator, a known host, is listed under "Mirror screen" once the tray knows it.
        let menu = try await host.layout { menu in
            Self.item(menu, "Mirror screen").map { Self.children($0).contains { $0["enabled"] as? Bool == true } }
                ?? false
        }
        let menuRevision = host.lastRevision
        let labels = Self.children(menu).map { $0["label"] as? String ?? "" }
        #expect(
            labels.contains("Send this computer's sound") && labels.contains("Stop casting") && labels.contains("Quit"))
        #expect(Self.item(menu, "Stop casting")?["enabled"] as? Bool == false)
        let screen = try #require(Self.item(menu, "Mirror screen"))
        #expect(screen["submenu"] as? Bool == true)
        let target = try #require(Self.children(screen).first { $0["enabled"] as? Bool == true })
        let name = try #require(target["label"] as? String)
        #expect(name.contains("127.0.0.1"), "\(name)")

        let before = host.seen
        try await host.click(try #require(target["id"] as? Int))
        // The host hears of the change as the protocols say: a new layout revision, a new icon.
        let revision = menuRevision
        host.seen = before
        // (A LayoutUpdated of the revision just read may still be on its way: the next one is newer.)
        _ = try await host.next("a newer LayoutUpdated") {
            $0["event"] as? String == "layout-updated" && ($0["revision"] as? Int ?? 0) > revision
        }
        host.seen = before
        _ = try await host.next(within: .seconds(30), "NewIcon") { $0["event"] as? String == "new-icon" }
        host.seen = before
        let started = try await host.next(within: .seconds(30), "the started notification") {
            $0["event"] as? String == "notification"
        }
        #expect(started["summary"] as? String == "Mirroring the screen to \(name)", "\(started)")
        #expect(started["app"] as? String == "Cast")
        // The emulator decodes the mirrored display.
        let decoded = try await waitUntil(within: .seconds(20)) {
            (emulator.streamingReport?.video?.framesDecoded ?? 0) >= 3
        }
        #expect(decoded, "decoded \(emulator.streamingReport?.video?.framesDecoded ?? 0)")
        let mirroring = try await host.layout { Self.item($0, "Stop casting")?["enabled"] as? Bool == true }
        #expect(Self.children(mirroring).first?["label"] as? String == "Mirroring the screen to \(name)")
        #expect(Self.item(mirroring, "Mirror screen")?["enabled"] as? Bool == false)
        host.process.send("properties")
        let casting = try await host.next("properties") { $0["event"] as? String == "properties" }
        #expect((casting["properties"] as? [String: Any])?["IconName"] as? String == "cast-connected")

        // Stop casting: the stream ends cleanly, the app is stopped, the menu offers mirroring again.
        try await host.click(try #require(Self.item(mirroring, "Stop casting")?["id"] as? Int))
        let stopped = try await host.next(within: .seconds(20), "the stopped notification") {
            $0["event"] as? String == "notification"
        }
        #expect(stopped["summary"] as? String == "Stopped mirroring the screen to \(name)", "\(stopped)")
        // It replaced the started one rather than piling up.
        #expect(stopped["replaces"] as? Int == started["id"] as? Int)
        #expect(try await waitUntil(within: .seconds(10)) { emulator.runningApplication == nil })
        _ = try await host.layout { Self.item($0, "Mirror screen")?["enabled"] as? Bool == true }

        // Quit: the tray leaves.
        let quit = try await host.layout()
        try await host.click(try #require(Self.item(quit, "Quit")?["id"] as? Int))
        #expect(try await tray.exit(within: .seconds(15)) == 0, "\(tray.stderr.joined(separator: "\n"))")
    }
}

/// What the tray host needs: Debian's python3 with python-dbus and GObject, dbus-daemon, Xvfb.
enum TrayHostRequirements {
    static let python = "/usr/bin/python3"
    static let areMet: Bool =
        ["/usr/bin/dbus-daemon", "/usr/bin/Xvfb", Self.python].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        } && (try? CommandOutput.waiting(for: [Self.python, "-c", "import dbus, gi"]).status) == 0
}
