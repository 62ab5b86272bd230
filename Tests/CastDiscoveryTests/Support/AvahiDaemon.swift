import CastTestSupport
import Foundation

/// avahi-daemon, the mDNS stack of most Linux desktops, running in one of
/// a test's namespaces with a D-Bus bus of its own (its clients,
/// `avahi-publish` and `avahi-browse`, reach it there), and stopped with
/// the test. It holds UDP port 5353 in that namespace as it does on a
/// desktop, so a browser of ours beside it shares the port with it.
///
/// Its pid file and socket live in `/run/avahi-daemon`, which `ip netns
/// exec`'s own mount namespace covers with an empty tmpfs: the machine's
/// own avahi-daemon, if it runs one, is neither seen nor touched.
final class AvahiDaemon: Sendable {
    /// Whether avahi-daemon, its tools and dbus-daemon are installed (`make setup` installs them).
    static let isInstalled = [
        "/usr/sbin/avahi-daemon", "/usr/bin/avahi-publish", "/usr/bin/avahi-browse", "/usr/bin/dbus-daemon",
    ].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    /// Its bus, where its clients find it (`DBUS_SYSTEM_BUS_ADDRESS`).
    let busAddress: String
    private let directory: URL
    private let daemons: [DaemonProcess]

    private init(busAddress: String, directory: URL, daemons: [DaemonProcess]) {
        self.busAddress = busAddress
        self.directory = directory
        self.daemons = daemons
    }

    /// Starts avahi-daemon on `interface` of `namespace` (IPv4 only); runs
    /// `body`; stops it and its bus whatever happens.
    static func with(
        in namespace: String, interface: String, _ body: (AvahiDaemon) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cast-avahi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "/run/avahi-daemon", withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("avahi-daemon.conf")
        try Data(
            """
            [server]
            host-name=cast-avahi-\(getpid())
            use-ipv4=yes
            use-ipv6=no
            allow-interfaces=\(interface)
            enable-dbus=yes
            [wide-area]
            enable-wide-area=no
            [publish]
            publish-hinfo=no
            publish-workstation=no
            """.utf8
        ).write(to: configuration)
        let bus = TestBusDaemon.address(in: directory)
        var daemons: [DaemonProcess] = []
        let result = await outcome {
            daemons.append(try await TestBusDaemon.start(in: directory))
            daemons.append(
                try DaemonProcess(
                    "/usr/sbin/ip",
                    [
                        "netns", "exec", namespace, "/bin/sh", "-c",
                        "mount -t tmpfs tmpfs /run/avahi-daemon && exec /usr/sbin/avahi-daemon -f '\(configuration.path)'"
                            + " --no-drop-root --no-chroot --no-rlimits",
                    ],
                    environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus]))
            let avahi = AvahiDaemon(busAddress: bus, directory: directory, daemons: daemons)
            try await avahi.waitUntilRunning()
            try await body(avahi)
        }
        for daemon in daemons.reversed() { await daemon.stop() }
        try? FileManager.default.removeItem(at: directory)
        try result.get()
    }

    /// Publishes a service as `avahi-publish -s` does, for as long as the returned process runs.
    func publish(name: String, type: String, port: Int, txt: [String]) throws -> DaemonProcess {
        try DaemonProcess(
            "/usr/bin/avahi-publish", ["-s", name, type, "\(port)"] + txt,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": self.busAddress])
    }

    /// The services of `type` avahi-daemon has resolved (`avahi-browse -rpt`).
    func browse(_ type: String) async throws -> [AvahiService] {
        let output = try await CommandOutput.of(
            ["/usr/bin/avahi-browse", "-rpt", type], environment: ["DBUS_SYSTEM_BUS_ADDRESS": self.busAddress],
            timeLimit: .seconds(20))
        return output.stdout.split(separator: "\n").compactMap { AvahiService(line: String($0)) }
    }

    /// Waits (10 s at most) until avahi-daemon says on its bus that it runs
    /// (`Server.GetState` answers 2, AVAHI_SERVER_RUNNING).
    private func waitUntilRunning() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if self.daemons.contains(where: \.hasExited) { throw TestDaemonError.didNotStart("avahi-daemon") }
            let state = try await CommandOutput.dbusSend(
                self.busAddress, ["--dest=org.freedesktop.Avahi", "/", "org.freedesktop.Avahi.Server.GetState"])
            if state.contains("int32 2") { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestDaemonError.didNotStart("avahi-daemon (not running on its bus after 10 s)")
    }
}

/// One resolved service of `avahi-browse -p`:
/// `=;IFACE;PROTOCOL;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;"k=v" "k=v"…`.
struct AvahiService {
    var address: String
    var port: Int
    /// The TXT strings, unquoted.
    var txt: [String]

    init?(line: String) {
        let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, fields[0] == "=", let port = Int(fields[8]) else { return nil }
        self.address = fields[7]
        self.port = port
        // avahi-browse quotes each string; the strings here hold no quotes.
        self.txt = fields[9].split(separator: "\"").map(String.init).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
    }
}
