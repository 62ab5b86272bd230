import CastDBus
public import CastKit
import CastUI
import Foundation
import Logging
import NIOConcurrencyHelpers

/// The Cast menu in the desktop's tray: a StatusNotifierItem with a
/// DBusMenu (the protocols KDE, GNOME with the AppIndicator extension, XFCE,
/// Cinnamon and others show), built from CastUI's models alone — the Cast
/// button's state as the icon, the devices that can run each action, the
/// session's media, and what the app streams.
///
/// The tray plays and pauses and stops the session's media itself; it hands
/// the other actions (mirror, send sound, stop casting, quit) to the app,
/// which owns what it streams and says so with ``setCasting(_:)``.
///
/// ```swift
/// let tray = try CastTray(context: context, offersWindowChoice: false) { action in
///     if case .mirrorScreen(let device) = action { startMirroring(to: device) }
/// }
/// tray.setCasting(TrayCasting(kind: .screen, deviceName: "Living Room", isStarted: true))
/// ```
public final class CastTray: Sendable {
    private struct Shown {
        var button: CastButtonState
        var chooser: DeviceChooserState
        var controls: MediaControls
        var casting: TrayCasting?
        var identifiers = TrayMenu.Identifiers()
        var menu: DBusMenuObject
        /// The unique name of the watcher the item is registered with.
        var watcherOwner: String?

        mutating func rebuild(offersWindowChoice: Bool, offersExtension: Bool) -> TrayMenu {
            TrayMenu(
                button: self.button, chooser: self.chooser, controls: self.controls, casting: self.casting,
                offersWindowChoice: offersWindowChoice, offersExtension: offersExtension,
                identifiers: &self.identifiers)
        }
    }

    /// The bus name it owns: `org.kde.StatusNotifierItem-<pid>-<n>`, as the specification names items.
    public let busName: String
    /// The connection that owns ``busName`` and answers the host, on the serving thread.
    private let bus: SessionBus
    /// A second connection for the tray's own blocking calls: on the serving
    /// connection, the thread that reads the bus could take their replies.
    private let caller: SessionBus
    private let item: StatusNotifierItemObject
    private let button: CastButtonModel
    private let chooser: DeviceChooserModel
    private let offersWindowChoice: Bool
    private let offersExtension: Bool
    private let perform: @Sendable (TrayAction) -> Void
    private let logger: Logger
    private let shown: NIOLockedValueBox<Shown>
    private let stopped = NIOLockedValueBox(false)
    /// A click's action, performed once the click is answered.
    private let clicked = NIOLockedValueBox<TrayAction?>(nil)
    private let follower = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let registering = DispatchQueue(label: "cast.tray.register")
    private static let count = NIOLockedValueBox(0)

    /// Shows the tray.
    ///
    /// - Parameters:
    ///   - context: whose devices and session the menu shows.
    ///   - title: the name the desktop shows for the item.
    ///   - offersWindowChoice: whether to offer "Mirror a window…" (where the desktop has a picker).
    ///   - offersExtension: whether to offer "Extend to" (where the desktop makes a second screen).
    ///   - busAddress: the bus to use; `nil` for the session bus.
    ///   - perform: what picking a mirror, sound, stop-casting or quit item
    ///     does; called on the tray's bus thread, so hop to the app's own.
    /// - Throws: ``TrayError`` when the bus is unreachable or the name taken.
    ///   A desktop without a tray host is not an error: the item registers
    ///   when one starts (``isShown``).
    public init(
        context: CastContext, title: String = "Cast", offersWindowChoice: Bool, offersExtension: Bool = false,
        busAddress: String? = nil, perform: @escaping @Sendable (TrayAction) -> Void
    ) throws(TrayError) {
        let number = Self.count.withLockedValue { count in
            count += 1
            return count
        }
        self.busName = "org.kde.StatusNotifierItem-\(ProcessInfo.processInfo.processIdentifier)-\(number)"
        do {
            self.bus = try SessionBus(address: busAddress)
            self.caller = try SessionBus(address: busAddress)
        } catch {
            throw TrayError(.busUnavailable, error.description)
        }
        do {
            try self.bus.requestName(self.busName)
            // The host's watcher starting (again) after the tray: register with it then.
            try self.bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(TrayBus.watcher)'")
        } catch {
            throw TrayError(.nameTaken, error.description)
        }
        self.item = StatusNotifierItemObject(title: title)
        self.button = CastButtonModel(context: context)
        self.chooser = DeviceChooserModel(context: context, filtersByApplication: false)
        self.offersWindowChoice = offersWindowChoice
        self.offersExtension = offersExtension
        self.perform = perform
        self.logger = context.options.logger.makeLogger(subsystem: "Tray")
        var identifiers = TrayMenu.Identifiers()
        let (button, chooser, controls) = (
            self.button.buttonState, self.chooser.chooserState, self.chooser.mediaController.controls
        )
        let menu = TrayMenu(
            button: button, chooser: chooser, controls: controls, casting: nil,
            offersWindowChoice: offersWindowChoice, offersExtension: offersExtension, identifiers: &identifiers)
        self.shown = NIOLockedValueBox(
            Shown(
                button: button, chooser: chooser, controls: controls, identifiers: identifiers,
                menu: DBusMenuObject(menu: menu)))
        self.startServing()
        self.startFollowing()
        self.register()
    }

    deinit {
        self.stopped.withLockedValue { $0 = true }
        self.follower.withLockedValue { $0?.cancel() }
    }

    /// The menu as the desktop sees it now.
    public var menu: TrayMenu { self.shown.withLockedValue { $0.menu.menu } }

    /// Whether a tray host (the desktop's StatusNotifierWatcher) took the item.
    public var isShown: Bool { self.shown.withLockedValue { $0.watcherOwner != nil } }

    /// Says what the app streams now (`nil`: nothing); the menu and icon follow.
    public func setCasting(_ casting: TrayCasting?) {
        self.update { $0.casting = casting }
    }

    /// Takes the item off the tray and stops following the models.
    public func close() async {
        self.stopped.withLockedValue { $0 = true }
        self.follower.withLockedValue { $0?.cancel() }
        self.button.close()
        await self.chooser.close()
    }

    // MARK: The bus

    private func startServing() {
        let server = Thread { [bus, stopped, weak self] in
            try? bus.serve(
                until: { stopped.withLockedValue { $0 } },
                handler: { call in
                    self?.handle(call) ?? .error(name: "org.freedesktop.DBus.Error.Failed", message: "closed")
                },
                onSignal: { signal in
                    // NameOwnerChanged(name, old, new): a new watcher when `new` is not empty, none when it is.
                    guard signal.member == "NameOwnerChanged", signal.arguments.count == 3,
                        signal.arguments[0].string == TrayBus.watcher, let owner = signal.arguments[2].string
                    else { return }
                    if owner.isEmpty {
                        self?.shown.withLockedValue { $0.watcherOwner = nil }
                    } else {
                        self?.register()
                    }
                },
                afterReply: {
                    // After the answer: a Quit that ends the program still answers the host.
                    guard let self, let action = self.clicked.withLockedValue({ $0.take() }) else { return }
                    self.act(action)
                })
        }
        server.name = "cast.tray"
        server.start()
    }

    private func handle(_ call: SessionBus.MethodCall) -> SessionBus.MethodResult {
        switch call.path {
        case StatusNotifierItemObject.objectPath:
            return self.item.handle(call, menu: self.menu)
        case DBusMenuObject.objectPath:
            let object = self.shown.withLockedValue { $0.menu }
            let (result, action) = object.handle(call)
            if let action { self.clicked.withLockedValue { $0 = action } }
            return result
        default:
            return .error(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no object at \(call.path)")
        }
    }

    private func act(_ action: TrayAction) {
        let controller = self.chooser.mediaController
        switch action {
        case .togglePlayback: Task { try? await controller.togglePlayback() }
        case .stopMedia: Task { try? await controller.stop() }
        default: self.perform(action)
        }
    }

    /// Registers with the watcher that owns its name now, once per watcher,
    /// off the serving thread (blocking calls, one at a time).
    private func register() {
        self.registering.async { [weak self] in
            guard let self else { return }
            do {
                let owner = try self.caller.call(
                    "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetNameOwner", arguments: [.string(TrayBus.watcher)], timeout: .seconds(5)
                ).first?.string
                guard let owner, owner != self.shown.withLockedValue({ $0.watcherOwner }) else { return }
                _ = try self.caller.call(
                    TrayBus.watcher, path: TrayBus.watcherPath, interface: TrayBus.watcher,
                    member: "RegisterStatusNotifierItem", arguments: [.string(self.busName)], timeout: .seconds(5))
                self.shown.withLockedValue { $0.watcherOwner = owner }
                self.logger.info("tray: shown by the desktop's tray host", metadata: ["cast.watcher": "\(owner)"])
            } catch {
                self.logger.info(
                    "tray: no tray host yet; the item appears when one starts", metadata: ["cast.reason": "\(error)"])
            }
        }
    }

    // MARK: Following the models

    private func startFollowing() {
        let buttons = self.button.updates()
        let choosers = self.chooser.updates()
        let controls = self.chooser.mediaController.updates()
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [weak self] in
                    for await state in buttons { self?.update { $0.button = state } }
                }
                group.addTask { [weak self] in
                    for await state in choosers { self?.update { $0.chooser = state } }
                }
                group.addTask { [weak self] in
                    for await state in controls { self?.update { $0.controls = state } }
                }
            }
        }
        self.follower.withLockedValue { $0 = task }
    }

    /// Applies `change`, rebuilds the menu, and announces what changed.
    private func update(_ change: (inout Shown) -> Void) {
        let (old, new, revision) = self.shown.withLockedValue { shown -> (TrayMenu, TrayMenu, UInt32?) in
            change(&shown)
            let old = shown.menu.menu
            let new = shown.rebuild(offersWindowChoice: self.offersWindowChoice, offersExtension: self.offersExtension)
            guard new != old else { return (old, new, nil) }
            shown.menu.menu = new
            shown.menu.revision &+= 1
            return (old, new, shown.menu.revision)
        }
        guard let revision else { return }
        if new.root != old.root {
            self.bus.emitSignal(
                path: DBusMenuObject.objectPath, interface: DBusMenuObject.interface, member: "LayoutUpdated",
                arguments: [.uint32(revision), .int32(0)])
        }
        let item = StatusNotifierItemObject.interface
        let path = StatusNotifierItemObject.objectPath
        if new.iconName != old.iconName {
            self.bus.emitSignal(path: path, interface: item, member: "NewIcon", arguments: [])
        }
        if new.isActive != old.isActive {
            self.bus.emitSignal(
                path: path, interface: item, member: "NewStatus",
                arguments: [.string(new.isActive ? "Active" : "Passive")])
        }
        if new.tooltip != old.tooltip {
            self.bus.emitSignal(path: path, interface: item, member: "NewToolTip", arguments: [])
        }
    }
}
