import CastDiscovery
import CastTestSupport
import Testing

/// A device as a person names it: an address read as one, a name looked up
/// by discovery, and each way of getting it wrong named.
@Suite("Device lookup", .timeLimit(.minutes(1)))
struct DeviceLookupTests {
    @Test func addressesReadAsTypedWithTheDefaultPort() throws {
        let cases: [(String, String, Int)] = [
            ("192.168.1.20", "192.168.1.20", 8_009), ("192.168.1.20:8010", "192.168.1.20", 8_010),
            ("[fd00::20]:8011", "fd00::20", 8_011), ("fd00::20", "fd00::20", 8_009),
            ("[fe80::1%eth0]", "fe80::1%eth0", 8_009), ("localhost:9000", "127.0.0.1", 9_000),
        ]
        for (text, host, port) in cases {
            let address = try #require(CastDeviceAddress(text), "\(text)")
            #expect(address.address == IPAddress(host), "\(text)")
            #expect(address.port == port, "\(text)")
            #expect(CastDeviceAddress(address.description) == address, "\(address) reads back")
        }
        #expect(CastDeviceAddress("[fd00::20]:8011")?.description == "[fd00::20]:8011")
        // A zone that cannot be an interface's name (found by the fuzz target: a `]` in it did not read back).
        let badZones = ["::1%eth0]:8010", "[fe80::1%a b]:8009", "fe80::1%very-long-interface-name", "fe80::1%a/b"]
        for text in ["", "Kitchen", "host:port", "tv.local:8009", "1.2.3.4:0", "1.2.3.4:65536", "[fd00::1", "[::1]x"]
            + badZones
        {
            #expect(CastDeviceAddress(text) == nil, "\(text)")
        }
    }

    @Test func anAddressIsTheDeviceItselfWithNothingSent() async throws {
        let device = try await DiscoveryManager.device(
            "10.0.0.7:8010", configuration: DiscoveryConfiguration(interfaces: .named([])), within: .seconds(5),
            logger: quietLogger)
        #expect(device.source == .knownHost)
        #expect(device.addresses == [IPAddress("10.0.0.7")!])
        #expect(device.port == 8_010)
    }

    @Test func aMalformedAddressOrAnUnknownNameIsATypedError() async throws {
        let offline = DiscoveryConfiguration(interfaces: .named([]))
        let malformed = await #expect(throws: DiscoveryError.self) {
            try await DiscoveryManager.device(
                "host:port", configuration: offline, within: .seconds(5), logger: quietLogger)
        }
        #expect(malformed?.code == .malformedAddress)
        #expect(malformed?.message.contains("'host:port' is not HOST, HOST:PORT or [IPv6]:PORT") == true)
        let unknown = await #expect(throws: DiscoveryError.self) {
            try await DiscoveryManager.device(
                "Attic", configuration: offline, within: .milliseconds(50), logger: quietLogger)
        }
        #expect(unknown?.code == .deviceNotFound)
        #expect(unknown?.message == "no device named or with id \"Attic\" answered within 0.05 s")
    }
}
