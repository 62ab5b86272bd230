#!/usr/bin/env python3
"""A stand-in for xdg-desktop-portal's ScreenCast interface, for tests.

It owns org.freedesktop.portal.Desktop on the session bus it is given and
answers as the portal does (version 4, per
https://flatpak.github.io/xdg-desktop-portal/docs/doc-org.freedesktop.portal.ScreenCast.html):
every request returns a Request object path at once and answers later
through that object's Response signal. Start "shows the dialog" unless
SelectSources brought a restore token it issued (a UUID, as the real
portal's are), and grants the PipeWire
node given on the command line (or, with --answer cancel, answers 1: the
user cancelled; with --answer fail, 2: the interaction ended another way,
as a backend that cannot capture does — xdg-desktop-portal-wlr 0.7.0
without a GPU, for one). OpenPipeWireRemote hands out a socket connected to the
PipeWire daemon, as the real portal hands out a restricted remote. A
restore token that is not a UUID fails SelectSources with the error
xdg-desktop-portal 1.16's own front end returns before any backend sees it
(org.freedesktop.portal.Error.InvalidArgument, "Restore token is not a
valid UUID string": both strings are in Debian 12's /usr/libexec/xdg-desktop-portal).

Every call is appended to the --log file as one JSON line; the first line
is {"ready": true} once the bus name is owned.
"""
import argparse
import json
import re
import socket
import uuid

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = "org.freedesktop.portal.ScreenCast"
PATH = "/org/freedesktop/portal/desktop"

arguments = argparse.ArgumentParser()
arguments.add_argument("--bus", required=True)
arguments.add_argument("--log", required=True)
arguments.add_argument("--node", type=int, required=True)
arguments.add_argument("--width", type=int, required=True)
arguments.add_argument("--height", type=int, required=True)
arguments.add_argument("--pipewire-socket", required=True)
arguments.add_argument("--answer", choices=["grant", "cancel", "fail"], default="grant")
# AvailableSourceTypes: MONITOR 1 | WINDOW 2 by default; 7 adds VIRTUAL 4, a monitor the
# backend makes for the share (the ScreenCast interface's version 4).
arguments.add_argument("--source-types", type=int, default=3)
options = arguments.parse_args()


def log(entry):
    with open(options.log, "a") as file:
        file.write(json.dumps(entry) + "\n")


def plain(value):
    """D-Bus values as JSON values."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (int, dbus.UInt32, dbus.Int32)):
        return int(value)
    return str(value)


def sender_path(sender):
    return sender[1:].replace(".", "_")


class Request(dbus.service.Object):
    @dbus.service.signal("org.freedesktop.portal.Request", signature="ua{sv}")
    def Response(self, code, results):
        pass

    @dbus.service.method("org.freedesktop.portal.Request")
    def Close(self):
        self.remove_from_connection()


class Session(dbus.service.Object):
    @dbus.service.method("org.freedesktop.portal.Session")
    def Close(self):
        log({"call": "Session.Close"})
        self.remove_from_connection()


class Portal(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.bus = bus
        self.issued_tokens = set()
        self.restoring = False
        self.sessions = 0
        self.source_type = 1

    def respond(self, sender, token, code, results):
        path = "%s/request/%s/%s" % (PATH, sender_path(sender), token)
        request = Request(self.bus, path)

        def answer():
            request.Response(dbus.UInt32(code), dbus.Dictionary(results, signature="sv"))
            request.remove_from_connection()
            return False

        GLib.idle_add(answer)
        return dbus.ObjectPath(path)

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        values = {"version": 4, "AvailableSourceTypes": options.source_types, "AvailableCursorModes": 3}
        if interface != IFACE or name not in values:
            raise dbus.exceptions.DBusException(
                "no such property", name="org.freedesktop.DBus.Error.InvalidArgs")
        return dbus.UInt32(values[name])

    @dbus.service.method(IFACE, in_signature="a{sv}", out_signature="o", sender_keyword="sender")
    def CreateSession(self, opts, sender=None):
        log({"call": "CreateSession", "options": plain(opts)})
        session = "%s/session/%s/%s" % (PATH, sender_path(sender), opts["session_handle_token"])
        Session(self.bus, session)
        return self.respond(sender, opts["handle_token"], 0, {"session_handle": dbus.String(session)})

    @dbus.service.method(IFACE, in_signature="oa{sv}", out_signature="o", sender_keyword="sender")
    def SelectSources(self, session, opts, sender=None):
        log({"call": "SelectSources", "session": str(session), "options": plain(opts)})
        token = str(opts.get("restore_token", ""))
        if token:
            if not re.fullmatch(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}", token):
                raise dbus.exceptions.DBusException(
                    "Restore token is not a valid UUID string",
                    name="org.freedesktop.portal.Error.InvalidArgument")
        self.restoring = token in self.issued_tokens
        types = int(opts.get("types", 1))
        if types & ~options.source_types:
            raise dbus.exceptions.DBusException(
                "Unsupported source types", name="org.freedesktop.portal.Error.InvalidArgument")
        self.source_type = 4 if types == 4 else 1
        return self.respond(sender, opts["handle_token"], 0, {})

    @dbus.service.method(IFACE, in_signature="osa{sv}", out_signature="o", sender_keyword="sender")
    def Start(self, session, parent, opts, sender=None):
        log({"call": "Start", "dialog": not self.restoring})
        if options.answer in ("cancel", "fail") and not self.restoring:
            return self.respond(sender, opts["handle_token"], 1 if options.answer == "cancel" else 2, {})
        token = str(uuid.uuid4())
        self.issued_tokens.add(token)
        size = dbus.Struct((dbus.Int32(options.width), dbus.Int32(options.height)), signature="ii")
        properties = dbus.Dictionary({"size": size, "source_type": dbus.UInt32(self.source_type)}, signature="sv")
        streams = dbus.Array([dbus.Struct((dbus.UInt32(options.node), properties), signature="ua{sv}")],
                             signature="(ua{sv})")
        return self.respond(sender, opts["handle_token"], 0,
                            {"streams": streams, "restore_token": dbus.String(token)})

    @dbus.service.method(IFACE, in_signature="oa{sv}", out_signature="h")
    def OpenPipeWireRemote(self, session, opts):
        log({"call": "OpenPipeWireRemote"})
        remote = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            remote.connect(options.pipewire_socket)
        except OSError as error:
            remote.close()
            raise dbus.exceptions.DBusException(
                "cannot reach PipeWire: %s" % error, name="org.freedesktop.portal.Error.Failed")
        descriptor = dbus.types.UnixFd(remote.fileno())
        remote.close()
        return descriptor


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(options.bus)
portal = Portal(bus)
name = dbus.service.BusName("org.freedesktop.portal.Desktop", bus)
log({"ready": True})
GLib.MainLoop().run()
