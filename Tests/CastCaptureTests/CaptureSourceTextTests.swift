import CastCapture
import Testing

/// A capture source as a person writes it (`cast screen --capture`, the
/// tray's settings), read back from its own text.
@Suite(.timeLimit(.minutes(1))) struct CaptureSourceTextTests {
    @Test func eachSourceReadsBackFromItsText() {
        for source in [
            CaptureSource.screen, .portal, .output("HDMI-1"), .output("Living room"), .window(0x3a0_0007),
            .virtualMonitor(.init(width: 1920, height: 1080)),
        ] {
            #expect(CaptureSource(source.description) == source, "\(source)")
        }
        #expect(CaptureSource("window 60817415") == .window(0x3a0_0007))
        #expect(CaptureSource("window 0X3A00007") == .window(0x3a0_0007))
        #expect(CaptureSource("virtual 1280x720") == .virtualMonitor(.init(width: 1280, height: 720)))
    }

    @Test func whatNamesNoSourceIsNil() {
        for text in [
            "", "auto", "screen 1", "output", "window", "window 0x", "window -1", "window 0x1ffffffff", "Screen",
            "virtual", "virtual 1280", "virtual axb",
        ] {
            #expect(CaptureSource(text) == nil, "\(text)")
        }
    }

    /// GNOME and sway make a second screen for a cast; other desktops are not assumed to.
    @Test func theDesktopsThatMakeASecondScreenAreKnownByTheirEnvironment() {
        #expect(CaptureSource.desktopMakesVirtualMonitors(environment: ["XDG_CURRENT_DESKTOP": "GNOME"]))
        #expect(CaptureSource.desktopMakesVirtualMonitors(environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]))
        #expect(CaptureSource.desktopMakesVirtualMonitors(environment: ["SWAYSOCK": "/run/user/1000/sway-ipc.sock"]))
        #expect(!CaptureSource.desktopMakesVirtualMonitors(environment: ["XDG_CURRENT_DESKTOP": "KDE"]))
        #expect(!CaptureSource.desktopMakesVirtualMonitors(environment: ["SWAYSOCK": ""]))
        #expect(!CaptureSource.desktopMakesVirtualMonitors(environment: [:]))
    }
}
