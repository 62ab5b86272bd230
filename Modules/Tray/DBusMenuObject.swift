package import CastDBus

/// The menu at `/MenuBar` as `com.canonical.dbusmenu` (version 3, the
/// protocol libdbusmenu, KDE's and GNOME's AppIndicator hosts speak): what
/// each call answers, apart from the bus, so tests and the fuzz target call
/// it directly.
package struct DBusMenuObject: Sendable {
    package static let objectPath = "/MenuBar"
    package static let interface = "com.canonical.dbusmenu"

    /// What the menu shows now, and the revision it has.
    package var menu: TrayMenu
    package var revision: UInt32

    package init(menu: TrayMenu, revision: UInt32 = 1) {
        self.menu = menu
        self.revision = revision
    }

    /// The answer to `call`, and the action a click asked for (answered at once, performed by the caller).
    package func handle(_ call: SessionBus.MethodCall) -> (SessionBus.MethodResult, TrayAction?) {
        let arguments = call.arguments
        switch (call.interface, call.member) {
        case (TrayBus.introspectable, "Introspect"):
            return (.reply([.string(Self.introspection)]), nil)
        case (TrayBus.properties, "Get"):
            guard arguments.first?.string == Self.interface, let name = arguments.dropFirst().first?.string,
                let value = Self.properties[name]
            else { return (TrayBus.invalidArguments("no such property"), nil) }
            return (.reply([.variant(value)]), nil)
        case (TrayBus.properties, "GetAll"):
            return (.reply([.dictionary(arguments.first?.string == Self.interface ? Self.properties : [:])]), nil)
        case (Self.interface, "GetLayout"), ("", "GetLayout"):
            return (self.layoutReply(arguments), nil)
        case (Self.interface, "GetGroupProperties"), ("", "GetGroupProperties"):
            return (self.groupPropertiesReply(arguments), nil)
        case (Self.interface, "GetProperty"), ("", "GetProperty"):
            guard arguments.count == 2, case .int32(let id) = arguments[0], let name = arguments[1].string,
                let item = self.menu.item(withID: id), let value = Self.properties(of: item, [name])[name]
            else { return (TrayBus.invalidArguments("no such item or property"), nil) }
            return (.reply([.variant(value)]), nil)
        case (Self.interface, "Event"), ("", "Event"):
            return self.eventReply(arguments)
        case (Self.interface, "EventGroup"), ("", "EventGroup"):
            return self.eventGroupReply(arguments)
        case (Self.interface, "AboutToShow"), ("", "AboutToShow"):
            // The layout is always current: it is announced as it changes.
            return (.reply([.boolean(false)]), nil)
        case (Self.interface, "AboutToShowGroup"), ("", "AboutToShowGroup"):
            return (.reply([.typedArray(elementSignature: "i", []), .typedArray(elementSignature: "i", [])]), nil)
        default:
            return (
                .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(call.interface).\(call.member)"),
                nil
            )
        }
    }

    /// The answer to `GetLayout` (`i, i, as`): the revision, and the layout
    /// under the parent item to the depth asked.
    private func layoutReply(_ arguments: [DBusValue]) -> SessionBus.MethodResult {
        guard arguments.count == 3, case .int32(let parent) = arguments[0], case .int32(let depth) = arguments[1]
        else { return TrayBus.invalidArguments("GetLayout takes (i, i, as)") }
        guard let item = self.menu.item(withID: parent) else {
            return TrayBus.invalidArguments("no item \(parent)")
        }
        let names = Self.names(arguments[2])
        return .reply([.uint32(self.revision), Self.layout(item, depth: Int(depth), names: names)])
    }

    /// The answer to `GetGroupProperties` (`ai, as`): the properties asked
    /// for of each item found among the ids.
    private func groupPropertiesReply(_ arguments: [DBusValue]) -> SessionBus.MethodResult {
        guard arguments.count == 2, let ids = arguments[0].elements else {
            return TrayBus.invalidArguments("GetGroupProperties takes (ai, as)")
        }
        let names = Self.names(arguments[1])
        let found = ids.compactMap { $0.integer.flatMap { self.menu.item(withID: Int32(clamping: $0)) } }
        let entries = found.map {
            DBusValue.structure([.int32($0.id), .dictionary(Self.properties(of: $0, names))])
        }
        return .reply([.typedArray(elementSignature: "(ia{sv})", entries)])
    }

    /// The answer to `Event` (`i, s, v, u`), and the action of the item
    /// clicked when it is enabled.
    private func eventReply(_ arguments: [DBusValue]) -> (SessionBus.MethodResult, TrayAction?) {
        guard arguments.count >= 2, case .int32(let id) = arguments[0], let event = arguments[1].string else {
            return (TrayBus.invalidArguments("Event takes (i, s, v, u)"), nil)
        }
        guard let item = self.menu.item(withID: id) else {
            return (TrayBus.invalidArguments("no item \(id)"), nil)
        }
        return (.reply([]), event == "clicked" && item.isEnabled ? item.action : nil)
    }

    /// The answer to `EventGroup` (`a(isvu)`): the ids not in the menu, and
    /// the action of the first enabled item clicked.
    private func eventGroupReply(_ arguments: [DBusValue]) -> (SessionBus.MethodResult, TrayAction?) {
        // a(isvu): each click is performed; the ids not in the menu come back as errors.
        var unknown: [DBusValue] = []
        var action: TrayAction?
        for case .structure(let event) in arguments.first?.elements ?? [] {
            guard event.count >= 2, case .int32(let id) = event[0] else { continue }
            guard let item = self.menu.item(withID: id) else {
                unknown.append(.int32(id))
                continue
            }
            if event[1].string == "clicked", item.isEnabled, action == nil { action = item.action }
        }
        return (.reply([.typedArray(elementSignature: "i", unknown)]), action)
    }

    /// The menu's own properties.
    static let properties: [String: DBusValue] = [
        "Version": .uint32(3), "TextDirection": .string("ltr"), "Status": .string("normal"),
        "IconThemePath": .typedArray(elementSignature: "s", []),
    ]

    /// `(ia{sv}av)`: the item, its properties, and its children to `depth` (-1: all; 0: none).
    static func layout(_ item: TrayMenu.Item, depth: Int, names: Set<String>) -> DBusValue {
        let children =
            depth == 0
            ? [] : item.children.map { DBusValue.variant(Self.layout($0, depth: depth - 1, names: names)) }
        return .structure([
            .int32(item.id), .dictionary(Self.properties(of: item, names)),
            .typedArray(elementSignature: "v", children),
        ])
    }

    /// The item's properties as DBusMenu names them, only those in `names` (all when empty);
    /// defaults (enabled, visible, a standard item) are left out, as the protocol allows.
    static func properties(of item: TrayMenu.Item, _ names: Set<String>) -> [String: DBusValue] {
        var properties: [String: DBusValue] = [:]
        if item.isSeparator {
            properties["type"] = .string("separator")
        } else if item.id != 0 {
            properties["label"] = .string(item.label.replacingUnderscores)
        }
        if !item.isEnabled { properties["enabled"] = .boolean(false) }
        if !item.children.isEmpty { properties["children-display"] = .string("submenu") }
        return names.isEmpty ? properties : properties.filter { names.contains($0.key) }
    }

    private static func names(_ value: DBusValue) -> Set<String> {
        Set((value.elements ?? []).compactMap(\.string))
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="com.canonical.dbusmenu">
            <property name="Version" type="u" access="read"/>
            <property name="TextDirection" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="IconThemePath" type="as" access="read"/>
            <method name="GetLayout">
              <arg type="i" name="parentId" direction="in"/>
              <arg type="i" name="recursionDepth" direction="in"/>
              <arg type="as" name="propertyNames" direction="in"/>
              <arg type="u" name="revision" direction="out"/>
              <arg type="(ia{sv}av)" name="layout" direction="out"/>
            </method>
            <method name="GetGroupProperties">
              <arg type="ai" name="ids" direction="in"/>
              <arg type="as" name="propertyNames" direction="in"/>
              <arg type="a(ia{sv})" name="properties" direction="out"/>
            </method>
            <method name="GetProperty">
              <arg type="i" name="id" direction="in"/>
              <arg type="s" name="name" direction="in"/>
              <arg type="v" name="value" direction="out"/>
            </method>
            <method name="Event">
              <arg type="i" name="id" direction="in"/>
              <arg type="s" name="eventId" direction="in"/>
              <arg type="v" name="data" direction="in"/>
              <arg type="u" name="timestamp" direction="in"/>
            </method>
            <method name="EventGroup">
              <arg type="a(isvu)" name="events" direction="in"/>
              <arg type="ai" name="idErrors" direction="out"/>
            </method>
            <method name="AboutToShow">
              <arg type="i" name="id" direction="in"/>
              <arg type="b" name="needUpdate" direction="out"/>
            </method>
            <method name="AboutToShowGroup">
              <arg type="ai" name="ids" direction="in"/>
              <arg type="ai" name="updatesNeeded" direction="out"/>
              <arg type="ai" name="idErrors" direction="out"/>
            </method>
            <signal name="ItemsPropertiesUpdated">
              <arg type="a(ia{sv})" name="updatedProps"/>
              <arg type="a(ias)" name="removedProps"/>
            </signal>
            <signal name="LayoutUpdated">
              <arg type="u" name="revision"/>
              <arg type="i" name="parent"/>
            </signal>
            <signal name="ItemActivationRequested">
              <arg type="i" name="id"/>
              <arg type="u" name="timestamp"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
          </interface>
        </node>
        """
}

extension String {
    /// The label with each `_` doubled: DBusMenu reads a single `_` as the access-key mark.
    var replacingUnderscores: String {
        self.replacing("_", with: "__")
    }
}
