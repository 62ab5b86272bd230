import ArgumentParser
import CastKit
import CastSystemSleep
import CastTray
import Foundation

/// `cast tray`: the Cast menu in the desktop's tray (StatusNotifierItem +
/// DBusMenu, built from CastUI's models): mirror the screen or a window,
/// send this computer's sound, control what plays, stop — with a desktop
/// notification for each start, stop, failure and lost device.
struct TrayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tray",
        abstract:
            "The Cast menu in the desktop's tray: mirror the screen or a window, send the sound, control what plays.",
        discussion: """
            Shown by desktops with a StatusNotifierItem host: KDE Plasma, GNOME with the AppIndicator extension, \
            XFCE, Cinnamon, MATE, waybar's tray. Mirroring and sound run in the tray's own process, as \
            `cast screen --capture` and `cast audio --capture` do; notifications say when each starts, stops or \
            fails. Ctrl-C or Quit leaves.
            """)

    @OptionGroup var devices: KnownHostOptions

    @Option(help: "The X display to mirror (default: $DISPLAY).") var display: String?

    @OptionGroup(title: "Discovery") var discovery: DiscoveryOptions

    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).") var verbose = false

    /// The SDK's options: passive discovery, the device trust asked for.
    func options() throws -> CastOptions {
        try self.devices.castOptions(discovery: self.discovery.configuration, verbose: self.verbose)
    }

    func run() async throws {
        try await self.reportingFailures {
            let context = CastContext(options: try self.options())
            try await context.start()
            await self.devices.add(to: context.discoveryManager)
            var configuration = TrayApplication.Configuration()
            configuration.display = self.display
            configuration.portalGrant = .standard(application: "cast")
            let application = try TrayApplication(context: context, configuration: configuration) {
                Output.progress($0)
            }
            // Ctrl-C leaves as Quit does: the stream stopped cleanly first.
            let interruption = Interruption.install { application.quit() }
            defer { withExtendedLifetime(interruption) {} }
            // The session through the machine's sleep (logind), where there is a system bus.
            let sleep = try? SystemSleepMonitor(sessionManager: context.sessionManager)
            defer { sleep?.close() }
            Output.progress(
                "cast tray: the Cast menu is on the session bus as \(application.tray.busName); Ctrl-C leaves")
            await application.run()
            await context.stop()
        }
    }
}
