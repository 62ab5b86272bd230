#!/usr/bin/python3
"""A desktop's tray host and notification service, for the tray's tests.

Written with python-dbus (an implementation of D-Bus independent of the
libdbus calls the tray makes) to the freedesktop specifications, not to
our code: it owns org.kde.StatusNotifierWatcher (as KDE's, GNOME's
AppIndicator extension and waybar's hosts do) and
org.freedesktop.Notifications on the bus DBUS_SESSION_BUS_ADDRESS names,
and reads the item's properties and its com.canonical.dbusmenu layout as a
host does.

It prints one JSON object per line on stdout for what happens, and takes
commands on stdin, one per line:

    properties          the registered item's org.kde.StatusNotifierItem properties
    layout              the menu's whole layout (GetLayout(0, -1, []))
    click ID            Event(ID, "clicked", 0, 0), as a host does when an item is picked
"""
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
NOTIFICATIONS = "org.freedesktop.Notifications"


def emit(event):
    print(json.dumps(event), flush=True)


def plain(value):
    """A dbus-python value as JSON can hold it."""
    if isinstance(value, (dbus.Struct, dbus.Array, list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Dictionary):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Byte, dbus.Int16, dbus.UInt16)):
        return int(value)
    if isinstance(value, dbus.Double):
        return float(value)
    return str(value)


def item_tree(node):
    """(ia{sv}av) as {"id", "label", "enabled", "type", "submenu", "children"}."""
    ident, props, children = node
    return {
        "id": int(ident),
        "label": str(props.get("label", "")),
        "enabled": bool(props.get("enabled", True)),
        "type": str(props.get("type", "standard")),
        "submenu": str(props.get("children-display", "")) == "submenu",
        "children": [item_tree(child) for child in children],
    }


class Watcher(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.bus = bus
        self.items = []

    @dbus.service.method(WATCHER, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        # The specification: a bus name, or an object path on the sender's connection.
        name = service if not service.startswith("/") else sender
        path = "/StatusNotifierItem" if not service.startswith("/") else service
        self.items.append((name, path))
        emit({"event": "registered", "service": str(service), "sender": str(sender)})
        self.bus.add_signal_receiver(
            lambda revision, parent: emit({"event": "layout-updated", "revision": int(revision)}),
            signal_name="LayoutUpdated", dbus_interface=MENU, bus_name=name)
        self.bus.add_signal_receiver(
            lambda: emit({"event": "new-icon"}), signal_name="NewIcon", dbus_interface=ITEM, bus_name=name)
        self.StatusNotifierItemRegistered(service)

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {
            "RegisteredStatusNotifierItems": dbus.Array([n for n, _ in self.items], signature="s"),
            "IsStatusNotifierHostRegistered": True,
            "ProtocolVersion": dbus.Int32(0),
        }


class Notifications(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.next_id = 0

    @dbus.service.method(NOTIFICATIONS, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        self.next_id += 1
        ident = int(replaces_id) or self.next_id
        emit({"event": "notification", "app": str(app_name), "replaces": int(replaces_id), "id": ident,
              "icon": str(app_icon), "summary": str(summary), "body": str(body)})
        return dbus.UInt32(ident)

    @dbus.service.method(NOTIFICATIONS, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body"]

    @dbus.service.method(NOTIFICATIONS, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("tray_host.py", "swift-cast tests", "1", "1.2")


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    watcher = Watcher(bus)
    notifications = Notifications(bus)
    names = [dbus.service.BusName(WATCHER, bus), dbus.service.BusName(NOTIFICATIONS, bus)]
    loop = GLib.MainLoop()

    def item():
        name, path = watcher.items[-1]
        return bus.get_object(name, path)

    def command(line):
        words = line.split()
        if not words:
            return
        try:
            if words[0] == "properties":
                props = item().GetAll(ITEM, dbus_interface=dbus.PROPERTIES_IFACE)
                emit({"event": "properties", "properties": plain(props)})
            elif words[0] == "layout":
                menu_path = str(item().Get(ITEM, "Menu", dbus_interface=dbus.PROPERTIES_IFACE))
                name, _ = watcher.items[-1]
                menu = bus.get_object(name, menu_path)
                revision, layout = menu.GetLayout(0, -1, dbus.Array([], signature="s"), dbus_interface=MENU)
                emit({"event": "layout", "revision": int(revision), "menu": item_tree(layout)})
            elif words[0] == "click":
                menu_path = str(item().Get(ITEM, "Menu", dbus_interface=dbus.PROPERTIES_IFACE))
                name, _ = watcher.items[-1]
                menu = bus.get_object(name, menu_path)
                menu.Event(dbus.Int32(int(words[1])), "clicked", dbus.Int32(0, variant_level=1), dbus.UInt32(0),
                           dbus_interface=MENU)
                emit({"event": "clicked", "id": int(words[1])})
            else:
                emit({"event": "error", "message": "unknown command " + words[0]})
        except (dbus.DBusException, IndexError, ValueError) as error:
            emit({"event": "error", "message": str(error)})

    def on_stdin(source, condition):
        line = sys.stdin.readline()
        if not line:
            loop.quit()
            return False
        command(line)
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
    emit({"event": "ready", "names": [n.get_name() for n in names], "notifications": str(notifications)})
    loop.run()


if __name__ == "__main__":
    main()
