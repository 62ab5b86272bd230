import CastDiscovery
public import CastUI

/// The tray's menu, built from CastUI's models alone: the Cast button's
/// state, the device chooser's devices (each action lists the devices that
/// can run it: video for mirroring, sound for sound, and those whose
/// capabilities are not known yet under both), the session's media
/// controls, and what the app streams.
///
/// Item ids stay the same for the same item from one menu to the next
/// (``Identifiers``), so a click on a menu the desktop drew a moment ago
/// still reaches the item it showed.
public struct TrayMenu: Sendable, Hashable {
    /// One item: a command, a submenu, a separator, or a line of text.
    public struct Item: Sendable, Hashable {
        /// The item's id in the menu (DBusMenu's), unique and stable.
        public var id: Int32
        /// What the item says; empty for a separator.
        public var label: String
        /// Whether it can be picked (a disabled item shows greyed).
        public var isEnabled: Bool
        /// Whether it is a separator line.
        public var isSeparator: Bool
        /// What picking it does; `nil` for submenus, separators and text.
        public var action: TrayAction?
        /// The submenu's items; empty for other items.
        public var children: [Item]

        /// Creates an item.
        public init(
            id: Int32, label: String, isEnabled: Bool = true, isSeparator: Bool = false, action: TrayAction? = nil,
            children: [Item] = []
        ) {
            self.id = id
            self.label = label
            self.isEnabled = isEnabled
            self.isSeparator = isSeparator
            self.action = action
            self.children = children
        }

        /// The item with `id` in this item's tree (itself included).
        public func item(withID id: Int32) -> Item? {
            if self.id == id { return self }
            for child in self.children {
                if let found = child.item(withID: id) { return found }
            }
            return nil
        }
    }

    /// Ids for items by what they are: the same item gets the same id in every menu.
    public struct Identifiers: Sendable, Hashable {
        private var ids: [String: Int32] = [:]

        /// No ids handed out yet; the root is always 0.
        public init() {}

        /// The id of the item `key` names, a new one the first time.
        public mutating func id(for key: String) -> Int32 {
            if let id = self.ids[key] { return id }
            let id = Int32(clamping: self.ids.count + 1)
            self.ids[key] = id
            return id
        }
    }

    /// The menu's root (id 0); its children are the menu's lines.
    public var root: Item
    /// The tray icon's name (freedesktop icon theme): `cast`, `cast-connecting` or `cast-connected`.
    public var iconName: String
    /// Whether the icon is worth showing: `false` with no network, no device, no session and nothing streamed.
    public var isActive: Bool
    /// The tooltip's text: what the Cast button says, or what is streamed.
    public var tooltip: String

    /// The menu for the models' states now.
    ///
    /// - Parameters:
    ///   - button: the Cast button's state (the icon, the first line).
    ///   - chooser: the devices found and the session's device.
    ///   - controls: the session's media (a play/pause line and a stop line when it shows).
    ///   - casting: what the app streams, if anything.
    ///   - offersWindowChoice: whether to offer "Mirror a window…" (where the desktop has a picker).
    ///   - offersExtension: whether to offer "Extend to" (where the desktop makes a second screen).
    ///   - identifiers: the ids handed out so far; new items get new ones.
    public init(
        button: CastButtonState, chooser: DeviceChooserState, controls: MediaControls, casting: TrayCasting?,
        offersWindowChoice: Bool, offersExtension: Bool = false, identifiers: inout Identifiers
    ) {
        var lines: [Item] = []
        let status = casting?.label ?? button.label
        lines.append(Item(id: identifiers.id(for: "status"), label: status, isEnabled: false))
        let busy = casting != nil
        lines.append(
            Self.devices(
                "mirror-screen", "Mirror screen", .videoOut, chooser: chooser, busy: busy, identifiers: &identifiers
            ) { .mirrorScreen($0) })
        if offersWindowChoice {
            lines.append(
                Self.devices(
                    "mirror-window", "Mirror a window…", .videoOut, chooser: chooser, busy: busy,
                    identifiers: &identifiers
                ) { .mirrorWindow($0) })
        }
        if offersExtension {
            lines.append(
                Self.devices(
                    "extend-screen", "Extend to", .videoOut, chooser: chooser, busy: busy, identifiers: &identifiers
                ) { .extendScreen($0) })
        }
        lines.append(
            Self.devices(
                "send-sound", "Send this computer's sound", .audioOut, chooser: chooser, busy: busy,
                identifiers: &identifiers
            ) { .sendSound($0) })
        if controls.shouldAppear { lines += Self.mediaItems(controls, identifiers: &identifiers) }
        lines.append(Item(id: identifiers.id(for: "end-separator"), label: "", isSeparator: true))
        let castingSomething = busy || chooser.connection != nil
        lines.append(
            Item(
                id: identifiers.id(for: "stop-casting"), label: "Stop casting", isEnabled: castingSomething,
                action: .stopCasting))
        lines.append(Item(id: identifiers.id(for: "quit"), label: "Quit", action: .quit))
        self.root = Item(id: 0, label: "", children: lines)
        self.iconName = Self.iconName(button: button, casting: casting)
        self.isActive = busy || button.isVisible || !chooser.entries.isEmpty
        self.tooltip = status
    }

    /// The submenu `label` of the chooser's devices that have `output`, each
    /// doing `action` when picked; none is enabled while something is streamed (`busy`).
    private static func devices(
        _ key: String, _ label: String, _ output: CastDeviceCapabilities, chooser: DeviceChooserState, busy: Bool,
        identifiers: inout Identifiers, _ action: (CastDevice) -> TrayAction
    ) -> Item {
        // A device whose capabilities are unknown (a known host that has not
        // answered DNS-SD yet) is offered too: the stream says if it cannot.
        let able = chooser.entries.filter {
            $0.device.capabilities.isEmpty || $0.device.capabilities.contains(output)
        }
        let children =
            able.isEmpty
            ? [Item(id: identifiers.id(for: "\(key)/none"), label: "No devices found", isEnabled: false)]
            : able.map { entry in
                Item(
                    id: identifiers.id(for: "\(key)/\(entry.device.id)"), label: entry.device.friendlyName,
                    isEnabled: !busy, action: action(entry.device))
            }
        return Item(
            id: identifiers.id(for: key), label: label, isEnabled: !busy && !able.isEmpty, children: children)
    }

    /// The lines for the session's media: a separator, a play/pause line and a stop line.
    private static func mediaItems(_ controls: MediaControls, identifiers: inout Identifiers) -> [Item] {
        var lines: [Item] = []
        lines.append(Item(id: identifiers.id(for: "media-separator"), label: "", isSeparator: true))
        let title = controls.title ?? "Untitled"
        let playing = controls.primaryAction == .pause
        lines.append(
            Item(
                id: identifiers.id(for: "toggle-playback"), label: playing ? "Pause \(title)" : "Play \(title)",
                isEnabled: controls.enabledControls.contains(.togglePlayback), action: .togglePlayback))
        lines.append(
            Item(
                id: identifiers.id(for: "stop-media"), label: "Stop \(title)",
                isEnabled: controls.enabledControls.contains(.stop), action: .stopMedia))
        return lines
    }

    /// The tray icon's name: connected or connecting as the stream (or else the Cast button) is; `cast` otherwise.
    private static func iconName(button: CastButtonState, casting: TrayCasting?) -> String {
        switch (casting?.isStarted, button.castState) {
        case (true?, _), (nil, .connected): "cast-connected"
        case (false?, _), (nil, .connecting): "cast-connecting"
        default: "cast"
        }
    }

    /// The item with `id`, the root's 0 included.
    public func item(withID id: Int32) -> Item? {
        self.root.item(withID: id)
    }
}
