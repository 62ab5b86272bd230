import ArgumentParser
import CastKit
import CastMPRIS
import CastSystemSleep
import CastTerminalUI

/// `cast ui`: the SDK's full-screen terminal controller (CastTerminalUI's
/// `TerminalController`), with the desktop's media keys when asked.
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "A full-screen terminal controller: choose a device, control what it plays.",
        discussion: """
            Keys: ↑/↓ and Enter choose a device; space play/pause; ←/→ seek 10 s; +/- volume; m mute; \
            n/p next/previous; t subtitles; r playback rate; k skip ad; c devices; s stop casting; \
            d disconnect; q quit. The session is remembered, so the next cast ui resumes it.
            """)

    @Option(help: "The receiver app sessions launch or join (default: the Default Media Receiver).")
    var app = CastApplicationID.defaultMediaReceiver

    @OptionGroup var devices: KnownHostOptions

    @Flag(help: "Let the desktop's media keys and controls (MPRIS) control the TV too.") var mpris = false

    @OptionGroup(title: "Discovery") var discovery: DiscoveryOptions

    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).") var verbose = false

    /// The SDK's options: the app, passive discovery, the device trust asked for.
    func options() throws -> CastOptions {
        try self.devices.castOptions(
            application: self.app, discovery: self.discovery.configuration, verbose: self.verbose)
    }

    func run() async throws {
        try await self.reportingFailures {
            let context = CastContext(options: try self.options())
            await self.devices.add(to: context.discoveryManager)
            let controller = TerminalController(
                context: context,
                introductionFlagFile: XDGDirectory.state.file("ui-introduction-shown", application: "cast"))
            // The session through the machine's sleep (logind), where there is a system bus.
            let sleep = try? SystemSleepMonitor(sessionManager: context.sessionManager)
            defer { sleep?.close() }
            // The desktop's "show the player" brings the now-playing view forward.
            let desktop =
                self.mpris
                ? DesktopControls(
                    controller: controller.media, volume: controller.volume, raise: { controller.showNowPlaying() })
                : nil
            defer { desktop?.close() }
            let terminal: Terminal
            do {
                terminal = try Terminal()
            } catch {
                throw CommandFailure(.invalidInput, "cast ui needs a terminal: run it in one")
            }
            defer { terminal.restore() }
            await controller.run(on: terminal)
            await context.stop()
        }
    }
}
