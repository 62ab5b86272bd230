public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A D-Bus bus daemon for one test, with a configuration of its own.
///
/// Not `dbus-daemon --session`: Debian's session configuration adds the
/// standard service directories (`/usr/share/dbus-1/services`, …), so on a
/// desktop machine a test's bus activated the machine's real
/// xdg-desktop-portal when a test asked for the portal it had not started
/// (issue 32). This bus activates nothing — its only service directory is an
/// empty one in the test's folder — and lets any user connect, so a sender
/// a test runs as an unprivileged user reaches it too.
public enum TestBusDaemon {
    /// The bus's address for a daemon started in `directory`.
    public static func address(in directory: URL) -> String {
        "unix:path=\(directory.path)/bus"
    }

    /// Writes the configuration to `directory`, starts the daemon listening
    /// on ``address(in:)`` and waits until its socket accepts a connection
    /// (the file appears at bind, before listen: a client in between is
    /// refused, as an MPRIS test was once under TSan with a core busy).
    public static func start(in directory: URL) async throws -> DaemonProcess {
        let services = directory.appendingPathComponent("dbus-services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("dbus-bus.conf")
        try Data(
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <keep_umask/>
              <listen>\(Self.address(in: directory))</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(services.path)</servicedir>
              <policy context="default">
                <allow user="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.utf8
        ).write(to: configuration)
        let daemon = try DaemonProcess(
            "dbus-daemon", ["--config-file=\(configuration.path)", "--nofork", "--nopidfile"])
        let socket = directory.appendingPathComponent("bus").path
        let ready = await DaemonProcess.wait(for: .seconds(10)) {
            daemon.hasExited || Self.accepts(socket)
        }
        guard ready, !daemon.hasExited
        else {
            await daemon.stop()
            throw TestDaemonError.didNotStart("dbus-daemon")
        }
        // Anyone may connect to the socket: the bus's policy, not the file's mode, decides.
        chmod(socket, 0o777)
        return daemon
    }

    /// Whether `name` has an owner on `bus` now (dbus-send, an independent client).
    public static func hasOwner(_ name: String, on bus: String) -> Bool {
        let reply = try? CommandOutput.waiting(
            for: [
                "/usr/bin/dbus-send", "--bus=\(bus)", "--print-reply", "--dest=org.freedesktop.DBus",
                "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", "string:\(name)",
            ], timeLimit: .seconds(5))
        return reply?.stdout.contains("boolean true") == true
    }

    /// Whether a Unix stream socket at `path` accepts a connection now.
    static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
