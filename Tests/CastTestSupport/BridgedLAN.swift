import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A LAN of network namespaces made for one test and deleted after it: the
/// sender's namespace holds a bridge (`br0`, 10.203.n.1/24), and each device
/// namespace is linked to it by a veth pair (`eth0`, 10.203.n.(10 + i)/24) —
/// several hosts on one subnet, each with its own addresses and ports, as a
/// subnet scan needs. IPv4 only; nothing reaches the machine's own interfaces.
public final class BridgedLAN: Sendable {
    /// The sender's namespace.
    public let sender: String
    /// The device namespaces.
    public let devices: [String]
    /// The `n` in 10.203.n.0/24.
    public let subnet: Int

    private static let counter = Counter()

    private init(sender: String, devices: [String], subnet: Int) {
        self.sender = sender
        self.devices = devices
        self.subnet = subnet
    }

    /// Creates the LAN with `count` device namespaces; runs `body`; deletes it whatever happens.
    public static func with<T>(devices count: Int, _ body: (BridgedLAN) async throws -> T) async throws -> T {
        NamespacePair.removeAbandoned
        let number = Self.counter.next()
        // The prefixes NamespacePair cleans up after a test process that died.
        let tag = "\(getpid())x\(number)l"
        let lan = BridgedLAN(
            sender: "castA\(tag)", devices: (0..<count).map { "castB\(tag)\($0)" }, subnet: number % 250 + 1)
        defer { lan.destroy() }
        try lan.create()
        return try await body(lan)
    }

    /// The range a scan probes: `10.203.n.0/24`.
    public var network: String { "10.203.\(self.subnet).0/24" }
    /// The sender's address on the bridge.
    public var senderAddress: String { "10.203.\(self.subnet).1" }
    /// The address of device namespace `index`.
    public func address(ofDevice index: Int) -> String { "10.203.\(self.subnet).\(10 + index)" }

    /// Drops all multicast the sender's namespace sends or receives (nftables), as a router
    /// that blocks mDNS would.
    public func dropMulticast() throws {
        let rules = """
            table ip castlan {
                chain input { type filter hook input priority 0; ip daddr 224.0.0.0/4 drop; }
                chain output { type filter hook output priority 0; ip daddr 224.0.0.0/4 drop; }
            }
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("castlan-\(self.sender).nft")
        try Data(rules.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try NamespacePair.run("/usr/sbin/ip", "netns", "exec", self.sender, "/usr/sbin/nft", "-f", file.path)
    }

    /// Whether nftables is installed, for the tests that drop multicast.
    public static let hasNFTables = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft")

    private func create() throws {
        for namespace in [self.sender] + self.devices {
            try NamespacePair.ip("netns", "add", namespace)
            try NamespacePair.run(
                "/usr/sbin/ip", "netns", "exec", namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1")
            try NamespacePair.ip("-n", namespace, "link", "set", "lo", "up")
        }
        try NamespacePair.ip("-n", self.sender, "link", "add", "br0", "type", "bridge")
        try NamespacePair.ip("-n", self.sender, "addr", "add", "\(self.senderAddress)/24", "dev", "br0")
        try NamespacePair.ip("-n", self.sender, "link", "set", "br0", "up")
        for (index, device) in self.devices.enumerated() {
            let port = "p\(index)"
            try NamespacePair.ip(
                "-n", self.sender, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", device)
            try NamespacePair.ip("-n", self.sender, "link", "set", port, "master", "br0", "up")
            try NamespacePair.ip("-n", device, "addr", "add", "\(self.address(ofDevice: index))/24", "dev", "eth0")
            try NamespacePair.ip("-n", device, "link", "set", "eth0", "up")
        }
        try self.waitForCarrier()
    }

    /// The kernel reports carrier up to a second after both ends are up (see NamespacePair).
    private func waitForCarrier() throws {
        let deadline = ContinuousClock.now + .seconds(5)
        for device in self.devices {
            while true {
                let link = try NamespacePair.ip("-n", device, "-o", "link", "show", "dev", "eth0")
                if link.contains("state UP") { break }
                guard ContinuousClock.now < deadline else {
                    throw NamespaceError(message: "eth0 in \(device) has no carrier after 5 s")
                }
                usleep(20_000)
            }
        }
    }

    private func destroy() {
        for namespace in [self.sender] + self.devices {
            _ = try? NamespacePair.ip("netns", "del", namespace)
        }
    }
}
