public import CastCapture
public import CastKit
public import Foundation

/// The Cast menu as an application runs it: shows a ``CastTray`` and does
/// what its items say in this process — mirrors the screen (the portal in a
/// Wayland session) or, through the portal, a window, or makes the device a
/// second screen (`DesktopMirror`),
/// sends this computer's sound (`DesktopSoundMirror`), stops, quits — with
/// a desktop notification (``DesktopNotifier``) for each start, stop,
/// failure and device lost while it streams. What `cast tray` runs.
///
/// ```swift
/// let context = CastContext(options: options)
/// try await context.start()
/// let tray = try TrayApplication(context: context)
/// await tray.run()  // until Quit is picked, or tray.quit()
/// await context.stop()
/// ```
public final class TrayApplication: Sendable {
    /// How the tray looks and what it mirrors.
    public struct Configuration: Sendable {
        /// The name the desktop shows for the item.
        public var title = "Cast"
        /// The X display mirrored outside a Wayland session (`nil`: `$DISPLAY`).
        public var display: String?
        /// Whether "Mirror a window…" is offered (where the desktop has a picker: a Wayland session).
        public var offersWindowChoice: Bool
        /// Whether "Extend to" is offered (where the desktop makes a second
        /// screen for a cast: `CaptureSource.desktopMakesVirtualMonitors(environment:)`).
        public var offersExtension: Bool
        /// Where the portal's answer is kept between runs, so it asks once; `nil` asks every time.
        public var portalGrant: PortalGrant?
        /// The bus to use; `nil` for the session bus.
        public var busAddress: String?
        /// Whether starts, stops and failures are notified on the desktop.
        public var notifies = true

        /// A tray that offers a window choice in a Wayland session, and the
        /// device as a second screen on GNOME and sway, as `environment` tells.
        public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            self.offersWindowChoice = environment["WAYLAND_DISPLAY"] != nil
            self.offersExtension = CaptureSource.desktopMakesVirtualMonitors(environment: environment)
        }
    }

    /// The menu shown.
    public let tray: CastTray
    private let controller: TrayController
    private let inputs: AsyncStream<TrayInput>
    private let input: AsyncStream<TrayInput>.Continuation

    /// Shows the tray for `context`'s devices and session.
    ///
    /// - Parameters:
    ///   - context: whose devices and session the menu shows and acts on.
    ///   - configuration: how the tray looks and what it mirrors.
    ///   - report: told what happens, one line for people (each
    ///     notification, a notification service that is missing).
    /// - Throws: ``TrayError`` when the bus is unreachable or the name taken.
    public init(
        context: CastContext, configuration: Configuration = Configuration(),
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(TrayError) {
        let (inputs, input) = AsyncStream.makeStream(of: TrayInput.self)
        self.tray = try CastTray(
            context: context, title: configuration.title, offersWindowChoice: configuration.offersWindowChoice,
            offersExtension: configuration.offersExtension, busAddress: configuration.busAddress
        ) { input.yield(.action($0)) }
        var notifier: DesktopNotifier?
        if configuration.notifies {
            do {
                notifier = try DesktopNotifier(
                    applicationName: configuration.title, busAddress: configuration.busAddress)
            } catch {
                report("no notifications: \(error)")
            }
        }
        (self.inputs, self.input) = (inputs, input)
        self.controller = TrayController(
            context: context, tray: self.tray, notifier: notifier, input: input, configuration: configuration,
            report: report)
    }

    /// Leaves as Quit does: the stream stopped cleanly first.
    public func quit() {
        self.input.yield(.action(.quit))
    }

    /// Does what the menu asks until Quit, then closes the tray.
    public func run() async {
        let losses = Task { [context = self.controller.context, input = self.input] in
            for await event in context.discoveryManager.events() {
                if case .lost(let device, let reason) = event, reason != .stopped { input.yield(.lost(device, reason)) }
            }
        }
        await self.controller.run(self.inputs)
        losses.cancel()
        await self.tray.close()
    }
}

/// What the tray's loop acts on, one at a time.
enum TrayInput: Sendable {
    case action(TrayAction)
    /// The stream of the given generation started or ended.
    case casting(TrayStream.Event, generation: Int)
    case lost(CastDevice, DiscoveryEvent.LossReason)
}
