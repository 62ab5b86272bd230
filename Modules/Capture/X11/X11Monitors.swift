import CXCB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A monitor of an X screen (RandR 1.5): its name and where it sits on the screen.
public struct X11Monitor: Sendable, Hashable {
    /// The monitor's name: an output's (`HDMI-1`) or one given with `xrandr --setmonitor`.
    public var name: String
    /// Its left edge on the screen, pixels.
    public var x: Int
    /// Its top edge on the screen, pixels.
    public var y: Int
    /// Its width, pixels.
    public var width: Int
    /// Its height, pixels.
    public var height: Int
    /// Whether it is the primary monitor.
    public var isPrimary: Bool
}

extension X11Connection {
    /// The screen's active monitors, through RandR 1.5 `GetMonitors`.
    func monitors() throws(CaptureError) -> [X11Monitor] {
        try self.requireMonitors()
        var monitors: [X11Monitor] = []
        try self.forEachMonitor { info in
            monitors.append(
                X11Monitor(
                    name: self.atomName(info.name) ?? "", x: Int(info.x), y: Int(info.y), width: Int(info.width),
                    height: Int(info.height), isPrimary: info.primary != 0))
            return false
        }
        return monitors
    }

    /// The atom naming the active monitor `name`, or `nil` when there is no
    /// such monitor: what ``monitor(named:)`` looks for, without a name
    /// lookup per picture. Found through the monitor list rather than
    /// InternAtom: X.Org makes the atom of an output's own monitor only when
    /// a client first asks for the monitors (`RRMonitorMakeList`), so on a
    /// fresh server the name has no atom yet.
    func monitorAtom(_ name: String) throws(CaptureError) -> xcb_atom_t? {
        try self.requireMonitors()
        var found: xcb_atom_t?
        try self.forEachMonitor { info in
            guard self.atomName(info.name) == name else { return false }
            found = info.name
            return true
        }
        return found
    }

    /// Where the active monitor named `atom` is now (one `GetMonitors`
    /// round trip, nothing allocated); `nil` when it is not active.
    func monitor(named atom: xcb_atom_t) throws(CaptureError) -> (x: Int, y: Int, width: Int, height: Int)? {
        var found: (x: Int, y: Int, width: Int, height: Int)?
        try self.forEachMonitor { info in
            guard info.name == atom else { return false }
            found = (Int(info.x), Int(info.y), Int(info.width), Int(info.height))
            return true
        }
        return found
    }

    /// Checks for RandR 1.5, which has monitors.
    private func requireMonitors() throws(CaptureError) {
        guard cxcb_randr_extension(self.connection)?.pointee.present == 1,
            let version = xcb_randr_query_version_reply(
                self.connection, xcb_randr_query_version(self.connection, 1, 5), nil)
        else {
            throw CaptureError(.extensionMissing, "the X server has no RandR extension")
        }
        let supportsMonitors = version.pointee.major_version > 1 || version.pointee.minor_version >= 5
        free(version)
        guard supportsMonitors else {
            throw CaptureError(.extensionMissing, "the X server's RandR is older than 1.5 (no monitors)")
        }
    }

    /// Calls `body` with each active monitor until it returns `true`.
    private func forEachMonitor(_ body: (xcb_randr_monitor_info_t) -> Bool) throws(CaptureError) {
        guard
            let reply = xcb_randr_get_monitors_reply(
                self.connection, xcb_randr_get_monitors(self.connection, self.root, 1), nil)
        else {
            throw CaptureError(.captureFailed, "RandR GetMonitors failed")
        }
        defer { free(reply) }
        var iterator = xcb_randr_get_monitors_monitors_iterator(reply)
        while iterator.rem > 0, let info = iterator.data?.pointee {
            if body(info) { return }
            xcb_randr_monitor_info_next(&iterator)
        }
    }

    private func atomName(_ atom: xcb_atom_t) -> String? {
        guard let reply = xcb_get_atom_name_reply(self.connection, xcb_get_atom_name(self.connection, atom), nil)
        else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_atom_name_name_length(reply))
        guard let name = xcb_get_atom_name_name(reply) else { return nil }
        return name.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
