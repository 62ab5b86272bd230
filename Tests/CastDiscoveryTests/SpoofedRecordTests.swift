import NIOCore
import Testing

@_spi(Receiver) @testable import CastDiscovery

/// A spoofed mDNS record must not point the sender at the user's own
/// machine, at nowhere, or off the link it was heard on (issue 20).
@Suite("Spoofed records", .timeLimit(.minutes(3)))
struct SpoofedRecordTests {
    typealias Engine = BrowserEngineTests

    static let lan = AddressScope(
        isLoopback: false,
        subnets: [AddressScope.Subnet(address: IPAddress.V4("10.0.0.2")!, netmask: IPAddress.V4("255.255.255.0")!)])

    @Test(
        "Unspecified, loopback, multicast, broadcast and off-subnet addresses are refused",
        arguments: [
            ("0.0.0.0", "unspecified"), ("127.0.0.1", "loopback"), ("224.0.0.251", "multicast"),
            ("255.255.255.255", "broadcast"), ("10.0.0.255", "broadcast"),
            ("192.168.1.9", "outside the interface's subnets"), ("::", "unspecified"), ("::1", "loopback"),
            ("ff02::fb", "multicast"), ("::ffff:127.0.0.1", "loopback"),
        ])
    func refused(address: String, reason: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(Self.lan.refusal(of: parsed) == reason)
    }

    @Test("Addresses on the link are accepted; loopback on the loopback interface")
    func accepted() throws {
        for address in ["10.0.0.7", "fe80::1%eth0", "2001:db8::7"] {
            #expect(Self.lan.refusal(of: try #require(IPAddress(address))) == nil)
        }
        let loopback = AddressScope(isLoopback: true, subnets: [])
        #expect(loopback.refusal(of: try #require(IPAddress("127.0.0.1"))) == nil)
        #expect(loopback.refusal(of: try #require(IPAddress("::1"))) == nil)
        #expect(AddressScope.unknown.refusal(of: try #require(IPAddress("192.168.1.9"))) == nil)
    }

    @Test("A device record at 0.0.0.0 or port 0 gives no device, and the refusal is reported")
    func spoofedDevicesAreDropped() throws {
        for records in [
            Self.records(address: "0.0.0.0", port: 8009), Self.records(address: "127.0.0.1", port: 8009),
            Self.records(address: "10.0.0.7", port: 0),
        ] {
            var engine = Engine.makeEngine()
            engine.addInterface(index: 2, name: "eth0", scope: Self.lan, now: Engine.at(0))
            let step = engine.receive(
                Engine.response(records: records), interfaceIndex: 2, sourcePort: 5353, now: Engine.at(1))
            #expect(engine.devices.isEmpty)
            #expect(!step.refusals.isEmpty)
        }
        var engine = Engine.makeEngine()
        engine.addInterface(index: 2, name: "eth0", scope: Self.lan, now: Engine.at(0))
        _ = engine.receive(
            Engine.response(records: Self.records(address: "10.0.0.7", port: 8009)), interfaceIndex: 2,
            sourcePort: 5353, now: Engine.at(1))
        #expect(engine.devices.count == 1)
    }

    static func records(address: String, port: UInt16) -> [DNSResourceRecord] {
        [
            DNSResourceRecord(name: Engine.service, ttl: 100, data: .ptr(Engine.instance)),
            DNSResourceRecord(
                name: Engine.instance, ttl: 100, isCacheFlush: true,
                data: .srv(priority: 0, weight: 0, port: port, target: Engine.host)),
            DNSResourceRecord(
                name: Engine.instance, ttl: 100, isCacheFlush: true,
                data: .txt(["id=0123456789abcdef0123456789abcdef", "fn=TV"].map { Array($0.utf8) })),
            DNSResourceRecord(name: Engine.host, ttl: 100, isCacheFlush: true, data: .a(IPAddress.V4(address)!)),
        ]
    }
}
