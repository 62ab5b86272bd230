import CDBus
import CastDBus
@_spi(Receiver) import CastDiscovery
import CastTray
import CastUI

/// What a tray host (or any peer on the session bus) sends the tray: a whole
/// message demarshalled by libdbus, answered by the menu's object (DBusMenu)
/// or the item's (StatusNotifierItem) by its path, and the answer written
/// back into a message. The menu lists two devices and media, so clicks,
/// submenus and every property have something to reach.
///
/// The seed corpus is one well-formed call of each method and property
/// access the two objects serve, written by `cast-fuzz tray-call --seed DIR`.
enum TrayFuzzing {
    static let menu: TrayMenu = {
        let tv = CastDevice(
            id: "tv", friendlyName: "TV", modelName: "Chromecast", capabilities: [.videoOut, .audioOut],
            addresses: [IPAddress("10.0.0.2")!], port: 8009)
        var chooser = DeviceChooserState.initial
        chooser.entries = [DeviceChooserState.Entry(device: tv)]
        var controls = MediaControls(status: nil)
        controls.shouldAppear = true
        controls.title = "A film"
        controls.enabledControls = [.togglePlayback, .stop]
        var ids = TrayMenu.Identifiers()
        return TrayMenu(
            button: CastButtonState(castState: .connected, deviceName: "TV"), chooser: chooser, controls: controls,
            casting: nil, offersWindowChoice: true, identifiers: &ids)
    }()
    static let object = DBusMenuObject(menu: menu)
    static let item = StatusNotifierItemObject(title: "Cast")

    static func call(_ bytes: [UInt8]) {
        guard let message = DBusValue.message(demarshalling: bytes) else { return }
        defer { dbus_message_unref(message) }
        let call = SessionBus.MethodCall(message: message)
        let result =
            call.path == StatusNotifierItemObject.objectPath
            ? Self.item.handle(call, menu: Self.menu) : Self.object.handle(call).0
        guard case .reply(let values) = result,
            let reply = dbus_message_new_signal("/fuzz", "org.example.Fuzz", "Reply")
        else { return }
        defer { dbus_message_unref(reply) }
        for value in values { _ = DBusValue.append(value, to: reply) }
    }

    /// One marshalled call of each kind the menu and the item serve.
    static func seeds() -> [String: [UInt8]] {
        let menu = DBusMenuObject.interface
        let properties = "org.freedesktop.DBus.Properties"
        let menuCalls: [(String, String, String, [DBusValue])] = [
            ("get-layout", menu, "GetLayout", [.int32(0), .int32(-1), .typedArray(elementSignature: "s", [])]),
            ("get-layout-label", menu, "GetLayout", [.int32(2), .int32(1), .array([.string("label")])]),
            (
                "group-properties", menu, "GetGroupProperties",
                [.typedArray(elementSignature: "i", [.int32(1), .int32(2)]), .array([])]
            ),
            ("get-property", menu, "GetProperty", [.int32(2), .string("label")]),
            ("event", menu, "Event", [.int32(3), .string("clicked"), .variant(.int32(0)), .uint32(1)]),
            (
                "event-group", menu, "EventGroup",
                [.array([.structure([.int32(3), .string("clicked"), .variant(.int32(0)), .uint32(1)])])]
            ),
            ("about-to-show", menu, "AboutToShow", [.int32(0)]),
            ("menu-version", properties, "Get", [.string(menu), .string("Version")]),
        ]
        let itemCalls: [(String, String, String, [DBusValue])] = [
            ("item-all", properties, "GetAll", [.string(StatusNotifierItemObject.interface)]),
            ("item-tooltip", properties, "Get", [.string(StatusNotifierItemObject.interface), .string("ToolTip")]),
            ("item-activate", StatusNotifierItemObject.interface, "Activate", [.int32(0), .int32(0)]),
        ]
        return DBusSeeds.marshal(
            menuCalls, destination: "org.kde.StatusNotifierItem-1-1", path: DBusMenuObject.objectPath
        )
        .merging(
            DBusSeeds.marshal(
                itemCalls, destination: "org.kde.StatusNotifierItem-1-1", path: StatusNotifierItemObject.objectPath)
        ) { first, _ in first }
    }
}
