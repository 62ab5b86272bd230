import CastTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@_spi(Receiver) @testable import CastDiscovery

/// The scan range and the device cache, without a network.
@Suite(.timeLimit(.minutes(3)))
struct UnicastModelTests {
    @Test func cidrTextGivesTheNetworkAndItsHosts() throws {
        let network = try #require(IPv4Network("192.168.1.77/24"))
        #expect(network.description == "192.168.1.0/24")
        #expect(network.hosts.count == 254)
        #expect(network.hosts.first?.description == "192.168.1.1")
        #expect(network.hosts.last?.description == "192.168.1.254")
        #expect(IPv4Network("10.0.0.4/31")?.hosts.map(\.description) == ["10.0.0.4", "10.0.0.5"])
        #expect(IPv4Network("10.0.0.9")?.hosts.map(\.description) == ["10.0.0.9"])
        #expect(IPv4Network("10.1.2.3/16")?.hosts.count == 65_534)
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0/24", "10.0.0.0/", "10.0.0.0/2a", "fd00::/64", "x/8"] {
            #expect(IPv4Network(bad) == nil, "\(bad)")
        }
    }

    /// The scan's deadline at virtual time: with one probe at a time, each
    /// taking a second, a 2.5 s deadline starts the hosts at 0, 1 and 2 s
    /// and none after. (Before: the wall clock, untested.)
    @Test func aScanStartsNoHostAfterItsDeadline() async throws {
        let clock = ManualClock()
        let scan = SubnetScan(
            configuration: SubnetScanConfiguration(concurrency: 1, deadline: .milliseconds(2_500)),
            eventLoop: MultiThreadedEventLoopGroup.singleton.next(), logger: Logger(label: "scan-test"), clock: clock)
        let probed = NIOLockedValueBox([String]())
        let network = try #require(IPv4Network("10.0.0.0/29"))
        let devices = await scan.run(
            network,
            probing: { host in
                probed.withLockedValue { $0.append(host.description) }
                clock.advance(by: .seconds(1))
                return host.description == "10.0.0.2" ? [Self.device("b", "Kitchen", "10.0.0.2")] : []
            }, found: { _ in })
        #expect(probed.withLockedValue { $0 } == ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
        #expect(devices.map(\.friendlyName) == ["Kitchen"])
    }

    static func device(_ id: String, _ name: String, _ address: String) -> CastDevice {
        CastDevice(
            id: id, friendlyName: name, modelName: "Google Nest Mini", capabilities: [.audioOut],
            addresses: [IPAddress(address)!], port: 8009, instanceName: "Google-Nest-Mini-\(id)")
    }

    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cast-cache-\(UUID())/devices.json")
    }

    /// Kept across instances (a restart), bounded to the most recently seen, a later sighting
    /// never replaced by an earlier one, found by name or id without regard to case.
    @Test func theCacheSurvivesARestartIsBoundedAndKeepsTheNewestSighting() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let cache = DeviceCache(fileURL: file, capacity: 3)
        for index in 0..<5 {
            try cache.record(
                [Self.device("id\(index)", "Speaker \(index)", "10.0.0.\(index + 1)")],
                at: start + Double(index))
        }
        let reopened = DeviceCache(fileURL: file, capacity: 3)
        #expect(reopened.entries.map(\.id) == ["id4", "id3", "id2"])
        #expect(reopened.entry(named: "speaker 3")?.addresses == ["10.0.0.4"])
        #expect(reopened.entry(named: "ID2")?.friendlyName == "Speaker 2")
        #expect(reopened.entry(named: "Speaker 0") == nil)

        // An older sighting at another address does not replace a newer one; a newer one does.
        try reopened.record([Self.device("id4", "Speaker 4", "10.0.0.99")], at: start)
        #expect(reopened.entry(named: "id4")?.addresses == ["10.0.0.5"])
        try reopened.record([Self.device("id4", "Speaker 4", "10.0.0.99")], at: start + 10)
        #expect(reopened.entry(named: "id4")?.addresses == ["10.0.0.99"])

        // A device known by its address alone has no id to remember it by.
        try reopened.record([CastDevice(addressOnly: IPAddress("10.0.0.50")!, port: 8009, source: .unicast)])
        #expect(!reopened.entries.contains { $0.id.hasPrefix("10.0.0.50") })
        try reopened.remove(id: "id3")
        #expect(reopened.entries.map(\.id) == ["id4", "id2"])
    }

    @Test func aMissingCorruptOrOversizedFileIsAnEmptyCache() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(DeviceCache(fileURL: file).entries.isEmpty)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        for garbage in [
            Data("{not json".utf8), Data("[{\"id\":1}]".utf8), Data(count: DeviceCache.maximumFileSize + 1),
        ] {
            try garbage.write(to: file)
            #expect(DeviceCache(fileURL: file).entries.isEmpty)
        }
        // Writing over a corrupt file starts afresh.
        try DeviceCache(fileURL: file).record([Self.device("idA", "Kitchen", "10.0.0.7")])
        #expect(DeviceCache(fileURL: file).entries.map(\.id) == ["idA"])
    }
}
