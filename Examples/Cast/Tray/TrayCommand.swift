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
        var options = CastOptions(logger: DeviceOptions.makeLogger(verbose: self.verbose))
        options.discovery = self.discovery.configuration
        options.discovery.scanMode = .passive
        options.deviceAuthentication = try self.devices.trust.policy()
        self.devices.restrict(&options.discovery)
        return options
    }

    func run() async throws {
        try await self.reportingFailures {
            let context = CastContext(options: try self.options())
            try await context.start()
            await self.devices.add(to: context.discoveryManager)
            let (inputs, input) = AsyncStream.makeStream(of: TrayInput.self)
            // Ctrl-C leaves as Quit does: the stream stopped cleanly first.
            let interruption = Interruption.install { input.yield(.action(.quit)) }
            defer { withExtendedLifetime(interruption) {} }
            let tray = try CastTray(
                context: context, offersWindowChoice: ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] != nil
            ) { input.yield(.action($0)) }
            let notifier: DesktopNotifier?
            do {
                notifier = try DesktopNotifier()
            } catch {
                Output.progress("no notifications: \(error)")
                notifier = nil
            }
            // The session through the machine's sleep (logind), where there is a system bus.
            let sleep = try? SystemSleepMonitor(sessionManager: context.sessionManager)
            defer { sleep?.close() }
            let losses = Task {
                for await event in context.discoveryManager.events() {
                    if case .lost(let device, let reason) = event, reason != .stopped {
                        input.yield(.lost(device, reason))
                    }
                }
            }
            defer { losses.cancel() }
            Output.progress("cast tray: the Cast menu is on the session bus as \(tray.busName); Ctrl-C leaves")
            let controller = TrayController(
                context: context, tray: tray, notifier: notifier, input: input, display: self.display)
            await controller.run(inputs)
            await tray.close()
            await context.stop()
        }
    }
}

/// What the tray's loop acts on, one at a time.
enum TrayInput: Sendable {
    case action(TrayAction)
    /// The stream of the given generation started or ended.
    case casting(TrayStream.Event, generation: Int)
    case lost(CastDevice, DiscoveryEvent.LossReason)
}

/// `cast tray`'s loop: starts and stops the streams the menu asks for, and notifies.
private struct TrayController {
    let context: CastContext
    let tray: CastTray
    let notifier: DesktopNotifier?
    let input: AsyncStream<TrayInput>.Continuation
    let display: String?

    func run(_ inputs: AsyncStream<TrayInput>) async {
        var current: (stream: TrayStream, generation: Int)?
        var generation = 0
        var quitting = false
        // Whether the user asked the running stream to stop: one that ends on its own was ended by the device.
        var stopping = false
        for await input in inputs {
            switch input {
            case .action(.mirrorScreen(let device)), .action(.mirrorWindow(let device)),
                .action(.sendSound(let device)):
                guard current == nil, !quitting else { continue }
                let kind = Self.kind(of: input)
                generation += 1
                let stream = self.start(kind, to: device, generation: generation)
                current = (stream, generation)
                self.tray.setCasting(stream.casting)
            case .action(.stopCasting):
                stopping = current != nil
                current?.stream.stop()
                await self.context.sessionManager.endSession(stoppingApplication: true)
            case .action(.quit):
                quitting = true
                guard let current else { return }
                stopping = true
                current.stream.stop()  // its end finishes the loop
            case .action(.togglePlayback), .action(.stopMedia):
                break  // the tray does these itself
            case .casting(.started, let number):
                guard let running = current, running.generation == number else { continue }
                await self.started(running.stream)
            case .casting(.ended(let failure), let number):
                guard let running = current, running.generation == number else { continue }
                current = nil
                self.tray.setCasting(nil)
                await self.ended(running.stream, failure: failure, stopped: stopping)
                stopping = false
                if quitting { return }
            case .lost(let device, let reason):
                guard let running = current, running.stream.casting.deviceName == device.friendlyName else { continue }
                await self.notify("\(device.friendlyName) is gone", "It left the network (\(reason)).")
            }
        }
    }

    /// What a menu item that starts a stream asks to cast: the screen, a window or the sound.
    private static func kind(of input: TrayInput) -> TrayCasting.Kind {
        switch input {
        case .action(.mirrorWindow): .window
        case .action(.sendSound): .sound
        default: .screen
        }
    }

    /// Starts streaming `kind` to `device`; its start and end come back on the input as `generation`'s.
    private func start(_ kind: TrayCasting.Kind, to device: CastDevice, generation number: Int) -> TrayStream {
        TrayStream.start(
            kind, to: device, options: self.context.options, display: self.display
        ) { [input = self.input] in input.yield(.casting($0, generation: number)) }
    }

    /// The running `stream` streams: the menu shows it started, and a notification says so.
    private func started(_ stream: TrayStream) async {
        var casting = stream.casting
        casting.isStarted = true
        self.tray.setCasting(casting)
        await self.notify(casting.label, "Stop it from the Cast menu.")
    }

    /// Notifies that `stream` ended: it failed with `failure`, was `stopped` from the menu, or the device ended it.
    private func ended(_ stream: TrayStream, failure: String?, stopped stopping: Bool) async {
        let what = stream.casting
        var stopped = what
        stopped.isStarted = true
        if let failure {
            await self.notify("Casting to \(what.deviceName) failed", failure)
        } else if stopping {
            await self.notify("Stopped \(stopped.label.prefix(1).lowercased())\(stopped.label.dropFirst())")
        } else {
            await self.notify(
                "\(stopped.label) ended", "\(what.deviceName) stopped it, or is no longer on the network.")
        }
    }

    private func notify(_ summary: String, _ body: String = "") async {
        Output.progress("notification: \(summary)\(body.isEmpty ? "" : " — \(body)")")
        do {
            try await self.notifier?.notify(summary, body: body)
        } catch {
            Output.progress("the notification was not shown: \(error)")
        }
    }
}
