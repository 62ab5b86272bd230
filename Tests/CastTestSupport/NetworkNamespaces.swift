public import Foundation
import NIOConcurrencyHelpers
import NIOCore
public import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Two network namespaces joined by a veth pair, made for one test and
/// deleted after it: `a` (10.201.n.1, fd00:201:n::1 on `vA`) and `b`
/// (10.201.n.2, fd00:201:n::2 on `vB`). Multicast between them crosses a real
/// link and never reaches the machine's own interfaces.
///
/// Code runs inside a namespace through an event loop group whose thread
/// joined it (`setns(2)` applies to the calling thread), so sockets the
/// loop creates belong to that namespace.
public final class NamespacePair: Sendable {
    /// The first namespace's name.
    public let a: String
    /// The second namespace's name.
    public let b: String
    /// The `n` in 10.201.n.0/24.
    public let subnet: Int

    /// Whether this process may create namespaces: root and `ip` present.
    public static let isAvailable: Bool = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")

    /// Whether python3 with python-zeroconf is installed, for the interop tests.
    public static let hasZeroconf = NamespacePair.hasPythonModule("zeroconf")

    /// Whether python3 with pychromecast is installed, for the session interop tests.
    public static let hasPychromecast = NamespacePair.hasPythonModule("pychromecast")

    private static func hasPythonModule(_ name: String) -> Bool {
        (try? NamespacePair.run("/usr/bin/env", "python3", "-c", "import \(name)")) != nil
    }

    private static let counter = Counter()

    /// Deletes, once per process, the namespaces of earlier test processes that died before
    /// cleaning up (`castA<pid>x<n>`, `castB<pid>x<n>` whose process is gone).
    static let removeAbandoned: Void = {
        guard let list = try? NamespacePair.ip("netns", "list") else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix("castA") || name.hasPrefix("castB"),
                let pid = Int32(name.dropFirst(5).prefix { $0 != "x" }), pid != getpid(),
                kill(pid, 0) != 0
            else { continue }
            _ = try? NamespacePair.ip("netns", "del", name)
        }
    }()

    private init(a: String, b: String, subnet: Int) {
        self.a = a
        self.b = b
        self.subnet = subnet
    }

    /// Creates the namespaces, the link, the addresses; runs `body`; deletes them whatever happens.
    public static func with<T>(_ body: (NamespacePair) async throws -> T) async throws -> T {
        Self.removeAbandoned
        let number = Self.counter.next()
        let tag = "\(getpid())x\(number)"
        let pair = NamespacePair(a: "castA\(tag)", b: "castB\(tag)", subnet: number % 250 + 1)
        defer { pair.destroy() }
        try pair.create()
        return try await body(pair)
    }

    /// The IPv4 address of namespace `a` or `b`.
    public func ipv4(_ side: String) -> String { "10.201.\(self.subnet).\(side == self.a ? 1 : 2)" }
    /// The global IPv6 address of namespace `a` or `b`.
    public func ipv6(_ side: String) -> String { "fd00:201:\(self.subnet)::\(side == self.a ? 1 : 2)" }
    /// The veth end inside `namespace`.
    public func interface(in namespace: String) -> String { namespace == self.a ? "vA" : "vB" }

    private func create() throws {
        for namespace in [self.a, self.b] {
            try Self.ip("netns", "add", namespace)
            // No duplicate-address detection: IPv6 addresses are usable at once.
            try Self.run(
                "/usr/sbin/ip", "netns", "exec", namespace, "sysctl", "-qw",
                "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0")
            try Self.ip("-n", namespace, "link", "set", "lo", "up")
        }
        try Self.ip("-n", self.a, "link", "add", "vA", "type", "veth", "peer", "name", "vB", "netns", self.b)
        for namespace in [self.a, self.b] {
            let device = self.interface(in: namespace)
            try Self.ip("-n", namespace, "addr", "add", "\(self.ipv4(namespace))/24", "dev", device)
            try Self.ip("-n", namespace, "addr", "add", "\(self.ipv6(namespace))/64", "dev", device, "nodad")
            try Self.ip("-n", namespace, "link", "set", device, "up")
        }
        // The kernel reports the carrier (IFF_RUNNING, which the mDNS code
        // requires of an interface) through linkwatch, up to a second after
        // both ends are up: a test that opens sockets before then finds no
        // usable interface.
        for namespace in [self.a, self.b] { try self.waitForCarrier(in: namespace) }
    }

    private func waitForCarrier(in namespace: String) throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let link = try Self.ip("-n", namespace, "-o", "link", "show", "dev", self.interface(in: namespace))
            if link.contains("state UP") { return }
            usleep(20_000)
        }
        throw NamespaceError(message: "\(self.interface(in: namespace)) in \(namespace) has no carrier after 5 s")
    }

    private func destroy() {
        for namespace in [self.a, self.b] {
            _ = try? Self.ip("netns", "del", namespace)
        }
    }

    /// Takes the veth end in `namespace` down or up.
    public func setLink(in namespace: String, up: Bool) throws {
        try Self.ip("-n", namespace, "link", "set", self.interface(in: namespace), up ? "up" : "down")
    }

    /// A one-thread event loop group whose thread lives in `namespace`.
    public func eventLoopGroup(in namespace: String) throws -> MultiThreadedEventLoopGroup {
        try Self.eventLoopGroup(inNamespace: namespace)
    }

    /// A one-thread event loop group whose thread lives in the namespace named `namespace`.
    public static func eventLoopGroup(inNamespace namespace: String) throws -> MultiThreadedEventLoopGroup {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let path = "/var/run/netns/\(namespace)"
        try group.next().submit {
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { throw NamespaceError(message: "cannot open \(path)") }
            defer { close(descriptor) }
            // CLONE_NEWNET
            guard linuxSetns(descriptor, 0x4000_0000) == 0 else {
                throw NamespaceError(message: "setns failed: errno \(errno)")
            }
        }.wait()
        return group
    }

    /// Runs a program inside `namespace` in the background.
    public func spawn(in namespace: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace] + arguments
        process.environment = childEnvironment()
        process.standardOutput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @discardableResult
    public static func ip(_ arguments: String...) throws -> String {
        try Self.run(["/usr/sbin/ip"] + arguments)
    }

    @discardableResult
    public static func run(_ arguments: String...) throws -> String {
        try Self.run(arguments)
    }

    @discardableResult
    public static func run(_ arguments: [String]) throws -> String {
        let output = try CommandOutput.waiting(for: arguments)
        guard output.status == 0 else {
            throw NamespaceError(message: "\(arguments.joined(separator: " ")) failed: \(output.text)")
        }
        return output.text
    }
}

/// `setns(2)`, which Glibc's Swift module leaves out (it needs `_GNU_SOURCE`).
@_silgen_name("setns")
private func linuxSetns(_ descriptor: CInt, _ type: CInt) -> CInt

/// A namespace command failed.
public struct NamespaceError: Error, CustomStringConvertible {
    /// What failed.
    public let message: String
    /// The message.
    public var description: String { self.message }

    /// Creates an error saying what failed.
    public init(message: String) {
        self.message = message
    }
}

/// A thread-safe counter for unique names.
final class Counter: Sendable {
    private let value = NIOLockedValueBox(0)

    func next() -> Int {
        self.value.withLockedValue {
            $0 += 1
            return $0
        }
    }
}
