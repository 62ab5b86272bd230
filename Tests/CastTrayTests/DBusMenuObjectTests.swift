import CDBus
import CastDBus
import CastKit
import CastUI
import Testing

@testable import CastTray

/// The menu's DBusMenu answers, written into real libdbus messages and read
/// back: the signatures the protocol gives (`u(ia{sv}av)` for GetLayout),
/// each item's properties, depth limits, clicks, and bad calls.
@Suite(.timeLimit(.minutes(1)))
struct DBusMenuObjectTests {
    static func object() -> DBusMenuObject {
        var ids = TrayMenu.Identifiers()
        let menu = TrayMenu(
            button: CastButtonState(castState: .notConnected),
            chooser: TrayMenuTests.chooser([TrayMenuTests.tv, TrayMenuTests.speaker]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: false, identifiers: &ids)
        return DBusMenuObject(menu: menu, revision: 7)
    }

    static func call(_ member: String, _ arguments: [DBusValue], interface: String = DBusMenuObject.interface)
        -> SessionBus.MethodCall
    {
        SessionBus.MethodCall(
            path: DBusMenuObject.objectPath, interface: interface, member: member, arguments: arguments)
    }

    /// `values` written into a message as libdbus sends it: their signature and what a reader gets back.
    static func wire(_ values: [DBusValue]) throws -> (signature: String, read: [DBusValue]) {
        let message = try #require(dbus_message_new_signal("/t", "t.T", "T"))
        defer { dbus_message_unref(message) }
        for value in values { #expect(DBusValue.append(value, to: message), "cannot write \(value)") }
        let signature = String(cString: dbus_message_get_signature(message))
        return (signature, DBusValue.arguments(of: message))
    }

    @Test func theLayoutGoesOnTheWireAsTheProtocolTypesIt() throws {
        let (result, action) = Self.object().handle(Self.call("GetLayout", [.int32(0), .int32(-1), .array([])]))
        #expect(action == nil)
        guard case .reply(let values) = result else {
            Issue.record("\(result)")
            return
        }
        let (signature, read) = try Self.wire(values)
        #expect(signature == "u(ia{sv}av)")
        #expect(read.first == .uint32(7))
        let root = try #require(read.last?.elements)
        #expect(root.first == .int32(0))
        #expect(root[1].dictionary?["children-display"] == .string("submenu"))
        let lines = try #require(root[2].elements).compactMap(\.elements)
        let labels = lines.map { $0[1].dictionary?["label"]?.string ?? $0[1].dictionary?["type"]?.string ?? "" }
        #expect(
            labels == [
                "Cast to a device", "Mirror screen", "Send this computer's sound", "separator", "Stop casting", "Quit",
            ])
        // The status line and Stop casting are disabled; the submenus list their devices.
        #expect(lines[0][1].dictionary?["enabled"] == .boolean(false))
        #expect(lines[4][1].dictionary?["enabled"] == .boolean(false))
        let screens = try #require(lines[1][2].elements).compactMap(\.elements)
        #expect(screens.map { $0[1].dictionary?["label"] } == [.string("Living Room TV")])
        let sounds = try #require(lines[2][2].elements).compactMap(\.elements)
        // In the chooser's order.
        #expect(sounds.map { $0[1].dictionary?["label"] } == [.string("Living Room TV"), .string("Kitchen speaker")])
    }

    @Test func depthAndPropertyNamesLimitTheAnswer() throws {
        let object = Self.object()
        let screen = try #require(object.menu.root.children.first { $0.label == "Mirror screen" })
        let (result, _) = object.handle(
            Self.call("GetLayout", [.int32(screen.id), .int32(0), .array([.string("label")])]))
        guard case .reply(let values) = result else {
            Issue.record("\(result)")
            return
        }
        let (signature, read) = try Self.wire(values)
        #expect(signature == "u(ia{sv}av)")
        let layout = try #require(read.last?.elements)
        #expect(layout[0] == .int32(screen.id))
        #expect(layout[1].dictionary == ["label": .string("Mirror screen")])
        #expect(layout[2].elements?.isEmpty == true)

        let (group, _) = object.handle(
            Self.call(
                "GetGroupProperties",
                [.typedArray(elementSignature: "i", [.int32(screen.id), .int32(999)]), .array([])]))
        guard case .reply(let groupValues) = group else {
            Issue.record("\(group)")
            return
        }
        let (groupSignature, groupRead) = try Self.wire(groupValues)
        #expect(groupSignature == "a(ia{sv})")
        #expect(groupRead.first?.elements?.count == 1)  // the unknown id is left out

        let (property, _) = object.handle(Self.call("GetProperty", [.int32(screen.id), .string("children-display")]))
        guard case .reply(let propertyValues) = property else {
            Issue.record("\(property)")
            return
        }
        #expect(try Self.wire(propertyValues).signature == "v")
    }

    @Test func aClickOnAnEnabledItemAsksForItsActionAndNothingElseDoes() throws {
        let object = Self.object()
        let tv = try #require(object.menu.root.children[1].children.first)
        let data = DBusValue.variant(.int32(0))
        let (clicked, action) = object.handle(
            Self.call("Event", [.int32(tv.id), .string("clicked"), data, .uint32(1)]))
        #expect(action == .mirrorScreen(TrayMenuTests.tv))
        guard case .reply(let values) = clicked else {
            Issue.record("\(clicked)")
            return
        }
        #expect(values.isEmpty)
        // Hovering, a disabled item, an unknown id.
        #expect(object.handle(Self.call("Event", [.int32(tv.id), .string("hovered"), data, .uint32(1)])).1 == nil)
        let stop = try #require(object.menu.root.children.first { $0.label == "Stop casting" })
        #expect(object.handle(Self.call("Event", [.int32(stop.id), .string("clicked"), data, .uint32(1)])).1 == nil)
        let (unknown, none) = object.handle(Self.call("Event", [.int32(4242), .string("clicked"), data, .uint32(1)]))
        #expect(none == nil)
        guard case .error(let name, _) = unknown else {
            Issue.record("\(unknown)")
            return
        }
        #expect(name == "org.freedesktop.DBus.Error.InvalidArgs")
        // EventGroup: the click is taken, the unknown id returned.
        let events = DBusValue.array([
            .structure([.int32(tv.id), .string("clicked"), data, .uint32(2)]),
            .structure([.int32(4242), .string("clicked"), data, .uint32(2)]),
        ])
        let (grouped, groupAction) = object.handle(Self.call("EventGroup", [events]))
        #expect(groupAction == .mirrorScreen(TrayMenuTests.tv))
        guard case .reply(let errors) = grouped else {
            Issue.record("\(grouped)")
            return
        }
        #expect(try Self.wire(errors).read == [.array([.int32(4242)])])
    }

    @Test func malformedCallsGetErrorsNotCrashes() throws {
        let object = Self.object()
        let calls: [SessionBus.MethodCall] = [
            Self.call("GetLayout", []),
            Self.call("GetLayout", [.string("x"), .int32(0), .array([])]),
            Self.call("GetLayout", [.int32(999), .int32(-1), .array([])]),
            Self.call("GetGroupProperties", [.int32(1)]),
            Self.call("GetProperty", [.int32(1)]),
            Self.call("Event", [.string("clicked")]),
            Self.call("Frobnicate", []),
            Self.call("Get", [.string("nope"), .string("Version")], interface: "org.freedesktop.DBus.Properties"),
        ]
        for call in calls {
            let (result, action) = object.handle(call)
            #expect(action == nil)
            guard case .error = result else {
                Issue.record("\(call.member) \(call.arguments) answered \(result)")
                continue
            }
        }
        let (version, _) = object.handle(
            Self.call(
                "Get", [.string(DBusMenuObject.interface), .string("Version")],
                interface: "org.freedesktop.DBus.Properties"))
        guard case .reply(let values) = version else {
            Issue.record("\(version)")
            return
        }
        #expect(try Self.wire(values).read == [.uint32(3)])
    }

    @Test func theItemsPropertiesGoOnTheWireWithTheirTypes() throws {
        var ids = TrayMenu.Identifiers()
        let menu = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: TrayMenuTests.chooser([TrayMenuTests.tv]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: false, identifiers: &ids)
        let item = StatusNotifierItemObject(title: "Cast")
        let call = SessionBus.MethodCall(
            path: StatusNotifierItemObject.objectPath, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
            arguments: [.string(StatusNotifierItemObject.interface)])
        guard case .reply(let values) = item.handle(call, menu: menu) else {
            Issue.record("no reply")
            return
        }
        let (signature, read) = try Self.wire(values)
        #expect(signature == "a{sv}")
        let properties = try #require(read.first?.dictionary)
        #expect(properties["IconName"] == .string("cast"))
        #expect(properties["Status"] == .string("Active"))
        #expect(properties["Menu"] == .objectPath("/MenuBar"))
        #expect(properties["ItemIsMenu"] == .boolean(true))
        #expect(properties["ToolTip"]?.elements?.last == .string("Cast to a device"))
    }
}
