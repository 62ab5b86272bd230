package import CastDBus

/// Names and answers the tray's objects share.
package enum TrayBus {
    package static let introspectable = "org.freedesktop.DBus.Introspectable"
    package static let properties = "org.freedesktop.DBus.Properties"
    /// The watcher the desktop's tray host runs (KDE's name, which every host uses).
    package static let watcher = "org.kde.StatusNotifierWatcher"
    package static let watcherPath = "/StatusNotifierWatcher"

    static func invalidArguments(_ message: String) -> SessionBus.MethodResult {
        .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
}

/// The tray icon at `/StatusNotifierItem` as `org.kde.StatusNotifierItem`
/// (the freedesktop StatusNotifierItem specification): its properties from
/// the menu, and its methods, apart from the bus.
package struct StatusNotifierItemObject: Sendable {
    package static let objectPath = "/StatusNotifierItem"
    package static let interface = "org.kde.StatusNotifierItem"

    let title: String

    package init(title: String) {
        self.title = title
    }

    /// The item's properties for `menu`.
    package func properties(_ menu: TrayMenu) -> [String: DBusValue] {
        let noPixmaps = DBusValue.typedArray(elementSignature: "(iiay)", [])
        return [
            "Category": .string("ApplicationStatus"),
            "Id": .string("cast"),
            "Title": .string(self.title),
            "Status": .string(menu.isActive ? "Active" : "Passive"),
            "WindowId": .int32(0),
            "IconName": .string(menu.iconName),
            "IconPixmap": noPixmaps,
            "OverlayIconName": .string(""),
            "AttentionIconName": .string(""),
            "ToolTip": .structure([.string(menu.iconName), noPixmaps, .string(self.title), .string(menu.tooltip)]),
            // Any click opens the menu: there is no window to show.
            "ItemIsMenu": .boolean(true),
            "Menu": .objectPath(DBusMenuObject.objectPath),
        ]
    }

    /// The answer to `call` with the item showing `menu`.
    package func handle(_ call: SessionBus.MethodCall, menu: TrayMenu) -> SessionBus.MethodResult {
        switch (call.interface, call.member) {
        case (TrayBus.introspectable, "Introspect"):
            return .reply([.string(Self.introspection)])
        case (TrayBus.properties, "Get"):
            guard call.arguments.first?.string == Self.interface, let name = call.arguments.dropFirst().first?.string,
                let value = self.properties(menu)[name]
            else { return TrayBus.invalidArguments("no such property") }
            return .reply([.variant(value)])
        case (TrayBus.properties, "GetAll"):
            return .reply([.dictionary(call.arguments.first?.string == Self.interface ? self.properties(menu) : [:])])
        case (Self.interface, "Activate"), (Self.interface, "SecondaryActivate"), (Self.interface, "ContextMenu"),
            (Self.interface, "Scroll"):
            // ItemIsMenu: the host shows the menu itself; a scroll changes nothing.
            return .reply([])
        default:
            return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(call.interface).\(call.member)")
        }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.kde.StatusNotifierItem">
            <property name="Category" type="s" access="read"/>
            <property name="Id" type="s" access="read"/>
            <property name="Title" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="WindowId" type="i" access="read"/>
            <property name="IconName" type="s" access="read"/>
            <property name="IconPixmap" type="a(iiay)" access="read"/>
            <property name="OverlayIconName" type="s" access="read"/>
            <property name="AttentionIconName" type="s" access="read"/>
            <property name="ToolTip" type="(sa(iiay)ss)" access="read"/>
            <property name="ItemIsMenu" type="b" access="read"/>
            <property name="Menu" type="o" access="read"/>
            <method name="ContextMenu"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Activate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="SecondaryActivate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Scroll"><arg name="delta" type="i" direction="in"/><arg name="orientation" type="s" direction="in"/></method>
            <signal name="NewTitle"/>
            <signal name="NewIcon"/>
            <signal name="NewAttentionIcon"/>
            <signal name="NewOverlayIcon"/>
            <signal name="NewToolTip"/>
            <signal name="NewStatus"><arg name="status" type="s"/></signal>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
          </interface>
        </node>
        """
}
