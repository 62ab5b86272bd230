import CastCapture
import CastTestSupport
import Foundation
import Testing

/// `cast screen --extend` on GNOME — mutter 43 headless with its Xwayland,
/// on the test's bus and PipeWire — makes the TV a second screen that lives
/// as long as the cast: mutter lists one more monitor while `cast` mirrors,
/// and none once the device stops its app or the user presses Ctrl-C.
/// (What the new screen shows reaching the receiver is VirtualMonitorTests'.)
@Suite(
    .timeLimit(.minutes(10)), .serialized,
    .enabled(if: HeadlessMutter.isAvailable, "needs mutter and xdg-desktop-portal-gnome (make setup)"))
struct ExtendedDesktopTests {
    @Test func theTVsScreenGoesWhenTheDeviceStopsTheAppAndAtCtrlC() async throws {
        try await CastCommandLineTests.withEmulator { emulator, device in
            try await ScreenCastDesktop.with { desktop in
                try await HeadlessMutter.with(on: desktop, width: 640, height: 360) { mutter in
                    let monitors = { (try? ScreenCapture.monitors(display: mutter.xDisplay))?.count ?? 0 }
                    #expect(monitors() == 1)
                    let environment = [
                        "DBUS_SESSION_BUS_ADDRESS": desktop.busAddress, "XDG_SESSION_TYPE": "wayland",
                        "PIPEWIRE_RUNTIME_DIR": desktop.directory.path, "XDG_RUNTIME_DIR": desktop.directory.path,
                    ]
                    let arguments = [
                        CastCommandLineTests.executable("cast"), "screen", "--extend", "--max-size", "480x270",
                        "--no-audio", "--device", device,
                    ]
                    for ending in ["the device stops the app", "Ctrl-C"] {
                        let cast = try InteractiveProcess(arguments, environment: environment)
                        let mirroring = try await waitUntil(within: .seconds(30)) {
                            cast.stderr.contains { $0.hasPrefix("mirroring the TV's own screen (480x270)") }
                                || cast.exitStatus != nil
                        }
                        #expect(mirroring && cast.exitStatus == nil, "\(ending): \(cast.stderr)")
                        #expect(monitors() == 2, "\(ending): mutter does not list the TV's screen")
                        if ending == "Ctrl-C" {
                            cast.signal(SIGINT)
                        } else {
                            #expect(emulator.stopApplication() != nil)
                        }
                        let status = try await cast.exit(within: .seconds(20))
                        #expect(status == 0, "\(ending): \(cast.stderr)")
                        #expect(
                            try await waitUntil(within: .seconds(10)) { monitors() == 1 },
                            "\(ending): the TV's screen is still on the desktop")
                        await cast.stop()
                    }
                }
            }
        }
    }
}
