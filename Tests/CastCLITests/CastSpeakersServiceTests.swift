import CastTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cast speakers` as a systemd user service, run as a user would: the
/// unit `--install-service` writes (with the options given) and
/// `--uninstall-service` removes; and, started with `NOTIFY_SOCKET` as
/// systemd starts a `Type=notify` service, READY=1 once its sinks are made,
/// then SIGTERM (how systemd stops it) ends it cleanly: STOPPING=1, exit 0,
/// no sink left.
@Suite(.timeLimit(.minutes(3))) struct CastSpeakersServiceTests {
    /// A folder every user may write to, removed afterwards.
    static func withSharedFolder<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cast-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o777)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    @Test func installServiceWritesTheUnitAndUninstallRemovesIt() async throws {
        try await Self.withSharedFolder { folder in
            let environment = ["XDG_CONFIG_HOME": folder.path]
            let installed = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"),
                ["speakers", "--grace", "5", "--group", "Both=Kitchen,Den $HOME", "--install-service"],
                environment: environment)
            #expect(installed.status == 0, "\(installed.stderr)")
            let unit = folder.appendingPathComponent("systemd/user/cast-speakers.service")
            #expect(installed.stderr.contains("wrote \(unit.path)"), "\(installed.stderr)")
            let text = try String(contentsOf: unit, encoding: .utf8)
            #expect(text.contains("Type=notify"))
            #expect(text.contains("ExecReload=/bin/kill -HUP $MAINPID\n"))
            #expect(text.contains("WantedBy=default.target"))
            let cast = URL(fileURLWithPath: CastCommandLineTests.executable("cast")).resolvingSymlinksInPath().path
            // Each word quoted, `$` doubled: the service gets the options as given, less the flag.
            #expect(
                text.contains(
                    "ExecStart=\"\(cast)\" \"speakers\" \"--grace\" \"5\" \"--group\" \"Both=Kitchen,Den $$HOME\"\n"),
                "\(text)")
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
                // systemd's own reading of the unit (it checks ExecStart's program exists too).
                let verified = try await CommandOutput.of(["systemd-analyze", "verify", "--man=no", unit.path])
                #expect(!verified.text.contains("cast-speakers.service:"), "\(verified.text)")
            }

            let removed = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("cast"), ["speakers", "--uninstall-service"], environment: environment)
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stderr.contains("removed \(unit.path)"), "\(removed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: unit.path))
        }
    }

    @Test func asAServiceItSaysReadyAndSIGTERMEndsItCleanly() async throws {
        try await SoundServer.with { sound in
            try await CastCommandLineTests.withEmulator(takesTurn: CastPlayLocalTests.takesTurn) { _, device in
                try await Self.withSharedFolder { folder in
                    try await Self.runAsAService(device: device, sound: sound, folder: folder)
                }
            }
        }
    }

    private static func runAsAService(device: String, sound: SoundServer, folder: URL) async throws {
        // systemd's side of the notify socket: each datagram as a line.
        let socket = folder.appendingPathComponent("notify").path
        let log = folder.appendingPathComponent("notify.log")
        let listener = try DaemonProcess(
            "/usr/bin/python3",
            [
                "-c",
                """
                import os, socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                s.bind(sys.argv[1])
                os.chmod(sys.argv[1], 0o777)
                with open(sys.argv[2], "a", buffering=1) as log:
                    while True:
                        log.write(s.recv(4096).decode().replace("\\n", " ") + "\\n")
                """,
                socket, log.path,
            ])
        defer { Task { await listener.stop() } }
        #expect(await DaemonProcess.wait(for: .seconds(10)) { FileManager.default.fileExists(atPath: socket) })
        // The settings file: the device, and a group of it alone.
        let settings = folder.appendingPathComponent("speakers.conf")
        try "# a comment\nonly = 127.0.0.1\ngroup = Both=127.0.0.1\n".write(
            to: settings, atomically: true, encoding: .utf8)
        var command = [
            CastCommandLineTests.executable("cast"), "speakers", "--device", device, "--no-mdns", "--audio-server",
            sound.server, "--config", settings.path,
        ]
        var environment = ["NOTIFY_SOCKET": socket]
        if let user = CastCommandLineTests.user {
            command = try user.command(command)
            environment = user.environment.merging(environment) { $1 }
        }
        let service = try InteractiveProcess(command, environment: environment)
        let notified: @Sendable () -> String = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        let deviceSink = "cast.127_0_0_1"
        let ready = try await waitUntil(within: .seconds(20)) {
            service.stderr.contains { $0.contains("sink \(deviceSink) added for 127.0.0.1") }
                && service.stderr.contains { $0.contains("sink cast.group.both added for Both") }
                && notified().contains("READY=1")
        }
        #expect(ready, "stderr: \(service.stderr), notified: \(notified())")
        try await Self.reload(service, settings: settings, sound: sound, deviceSink: deviceSink, notified: notified)
        service.signal(SIGTERM)
        let status = try await service.exit(within: .seconds(20))
        #expect(status == 0, "\(service.stderr)")
        #expect(try await waitUntil(within: .seconds(5)) { notified().contains("STOPPING=1") }, "\(notified())")
        #expect(service.stderr.contains { $0.hasSuffix(" the sinks are removed") }, "\(service.stderr)")
        let sinks = try await CommandOutput.of(["pactl", "--server=\(sound.server)", "list", "sinks", "short"])
        #expect(!sinks.stdout.contains("cast."), "\(sinks.stdout)")
        await listener.stop()
    }

    /// SIGHUP, as `systemctl reload` sends it: the group is gone from the
    /// file, so its sink goes and the device's stays; then a file that does
    /// not parse changes nothing and says which line.
    private static func reload(
        _ service: InteractiveProcess, settings: URL, sound: SoundServer, deviceSink: String,
        notified: @escaping @Sendable () -> String
    ) async throws {
        try "only = 127.0.0.1\ngrace = 20\n".write(to: settings, atomically: true, encoding: .utf8)
        service.signal(SIGHUP)
        let reloaded = try await waitUntil(within: .seconds(20)) {
            service.stderr.contains { $0.contains("reloaded \(settings.path)") }
        }
        #expect(reloaded, "\(service.stderr)")
        #expect(service.stderr.contains { $0.contains("sink cast.group.both of Both removed") }, "\(service.stderr)")
        #expect(!service.stderr.contains { $0.contains("\(deviceSink) of") }, "\(service.stderr)")
        let sinks = try await CommandOutput.of(["pactl", "--server=\(sound.server)", "list", "sinks", "short"])
        #expect(sinks.stdout.contains(deviceSink) && !sinks.stdout.contains("cast.group"), "\(sinks.stdout)")
        #expect(try await waitUntil(within: .seconds(5)) { notified().contains("RELOADING=1") }, "\(notified())")

        try "grace = forever\n".write(to: settings, atomically: true, encoding: .utf8)
        service.signal(SIGHUP)
        let kept = try await waitUntil(within: .seconds(20)) {
            service.stderr.contains { $0.contains("kept the settings") }
        }
        #expect(kept, "\(service.stderr)")
        #expect(
            service.stderr.contains { $0.contains("line 1: grace must be 1…3600 seconds, not forever") },
            "\(service.stderr)")
        let after = try await CommandOutput.of(["pactl", "--server=\(sound.server)", "list", "sinks", "short"])
        #expect(after.stdout.contains(deviceSink), "\(after.stdout)")
    }
}
