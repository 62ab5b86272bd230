import CastKit

/// The tray's loop: starts and stops the streams the menu asks for, and notifies.
struct TrayController: Sendable {
    let context: CastContext
    let tray: CastTray
    let notifier: DesktopNotifier?
    let input: AsyncStream<TrayInput>.Continuation
    let configuration: TrayApplication.Configuration
    let report: @Sendable (String) -> Void

    func run(_ inputs: AsyncStream<TrayInput>) async {
        var current: (stream: TrayStream, generation: Int)?
        var generation = 0
        var quitting = false
        // Whether the user asked the running stream to stop: one that ends on its own was ended by the device.
        var stopping = false
        for await input in inputs {
            switch input {
            case .action(.mirrorScreen(let device)), .action(.mirrorWindow(let device)),
                .action(.extendScreen(let device)), .action(.sendSound(let device)):
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

    /// What a menu item that starts a stream asks to cast: the screen, a window, a second screen or the sound.
    private static func kind(of input: TrayInput) -> TrayCasting.Kind {
        switch input {
        case .action(.mirrorWindow): .window
        case .action(.extendScreen): .extendedScreen
        case .action(.sendSound): .sound
        default: .screen
        }
    }

    /// Starts streaming `kind` to `device`; its start and end come back on the input as `generation`'s.
    private func start(_ kind: TrayCasting.Kind, to device: CastDevice, generation number: Int) -> TrayStream {
        TrayStream.start(
            kind, to: device, options: self.context.options, configuration: self.configuration
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
        self.report("notification: \(summary)\(body.isEmpty ? "" : " — \(body)")")
        do {
            try await self.notifier?.notify(summary, body: body)
        } catch {
            self.report("the notification was not shown: \(error)")
        }
    }
}
