import CastTestSupport
import Foundation
import Testing

/// `cast screen` in a real Wayland session — sway 1.7 headless with
/// Xwayland, run unprivileged — where reading the X screen sends black:
/// the X screen is refused in a sentence that names the portal, and
/// `--capture auto` picks the portal by itself.
@Suite(
    .timeLimit(.minutes(10)), .serialized,
    .enabled(
        if: UnprivilegedUser.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/sway"),
        "needs sway (make setup installs it) and setpriv"))
struct WaylandSessionTests {
    @Test func theXScreenIsRefusedInAWaylandSessionAndAutoChoosesThePortal() async throws {
        try await CastCommandLineTests.withEmulator { emulator, device in
            let user = try UnprivilegedUser.make()
            defer { user.remove() }
            try await HeadlessSway.with(as: user) { sway in
                var environment = sway.environment(of: user)
                // No session bus: a portal asked for fails at once instead of waiting for a dialog.
                environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(user.home.path)/no-bus"
                let cast = CastCommandLineTests.executable("cast")
                let run = { (arguments: [String], environment: [String: String]) in
                    let output = try await CommandOutput.of(
                        try user.command([cast] + arguments), environment: environment)
                    return CastCommandLineTests.Run(status: output.status, stdout: output.stdout, stderr: output.stderr)
                }

                let screen = try await run(["screen", "--capture", "screen", "--device", device], environment)
                #expect(screen.status == 10, "\(screen.stderr)")
                #expect(screen.stderr.contains("this display is Xwayland"), "\(screen.stderr)")
                #expect(screen.stderr.contains("--capture portal"), "\(screen.stderr)")
                #expect(!screen.stderr.contains("mirroring screen"))
                #expect(emulator.runningApplication == nil, "nothing may be left running on the device")

                // `--capture auto`, and `cast screen` without --capture, reach for the portal.
                for arguments in [["screen", "--capture", "auto"], ["screen"]] {
                    let auto = try await run(arguments + ["--device", device], environment)
                    #expect(auto.status == 10, "\(arguments): \(auto.stderr)")
                    #expect(
                        auto.stderr.contains("no D-Bus session bus to reach the screen-cast portal"),
                        "\(arguments): \(auto.stderr)")
                }

                environment["DISPLAY"] = ""
                let noDisplay = try await run(["screen", "--capture", "screen", "--device", device], environment)
                #expect(noDisplay.status == 10)
                #expect(noDisplay.stderr.contains("this is a Wayland session"), "\(noDisplay.stderr)")
            }
        }
    }
}
