@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import Foundation
import NIOPosix
import Testing

/// Discovery where multicast does not pass, on a bridged LAN of network
/// namespaces (one per device, each with its own address and Cast port):
/// a subnet scan, a known host filled in by unicast DNS-SD, and the device
/// cache — with the sender's multicast dropped by nftables.
@Suite(
    "Discovery by unicast",
    .timeLimit(.minutes(10)),
    .serialized,
    .enabled(if: NamespacePair.isAvailable && BridgedLAN.hasNFTables, "needs root, iproute2 and nftables")
)
struct UnicastDiscoveryTests {
    /// An emulator listening on 8009 in each device namespace; those whose index is in
    /// `advertised` also answer mDNS (their own responder on `eth0`, passed by index).
    static func withDevices(
        _ count: Int, advertised: Set<Int>, dropMulticast: Bool = true,
        _ body: (BridgedLAN, [CastEmulator], MultiThreadedEventLoopGroup, [Int: MDNSResponder]) async throws -> Void
    ) async throws {
        try await BridgedLAN.with(devices: count) { lan in
            if dropMulticast { try lan.dropMulticast() }
            var groups: [MultiThreadedEventLoopGroup] = []
            var emulators: [CastEmulator] = []
            var responders: [Int: MDNSResponder] = [:]
            let result = await outcome {
                for index in 0..<count {
                    let group = try NamespacePair.eventLoopGroup(inNamespace: lan.devices[index])
                    groups.append(group)
                    let emulator = try CastEmulator(
                        configuration: CastEmulatorConfiguration(
                            host: lan.address(ofDevice: index), name: "Speaker \(index)", profile: .nestSpeaker),
                        eventLoopGroup: group, logger: quietLogger)
                    try await emulator.start(port: 8009)
                    emulators.append(emulator)
                    if advertised.contains(index) {
                        let responder = emulator.makeResponder(interfaces: .named(["eth0"]), addressFamilies: .ipv4)
                        try await responder.start()
                        responders[index] = responder
                    }
                }
                let senderLoops = try NamespacePair.eventLoopGroup(inNamespace: lan.sender)
                groups.append(senderLoops)
                try await body(lan, emulators, senderLoops, responders)
            }
            for responder in responders.values { await responder.stop(sendingGoodbye: false) }
            for emulator in emulators { await emulator.stop() }
            for group in groups { try? await group.shutdownGracefully() }
            try result.get()
        }
    }

    static let browsing = DiscoveryConfiguration(interfaces: .named(["br0"]), addressFamilies: .ipv4)

    /// Three advertised devices and one whose Cast port is open but that answers no DNS-SD, on
    /// a /24 whose multicast the sender drops: mDNS finds nothing, the scan finds all four —
    /// the three with their ids, names and models from their own unicast answers, the fourth
    /// by its address — and lists each as it comes.
    @Test func aScanFindsTheDevicesOfASubnetWhoseMulticastIsDropped() async throws {
        try await Self.withDevices(4, advertised: [0, 1, 2]) { lan, emulators, loops, _ in
            let discovery = DiscoveryManager(configuration: Self.browsing, eventLoopGroup: loops, logger: quietLogger)
            let log = EventLog(discovery.events())
            try await discovery.start()
            try await Task.sleep(for: .seconds(1.5))
            #expect(discovery.devices.isEmpty, "multicast passed: \(discovery.devices)")

            let network = try #require(IPv4Network(lan.network))
            let started = ContinuousClock.now
            let devices = try await discovery.scan(network)
            let took = ContinuousClock.now - started
            print("scan of \(network) with 4 devices (3 advertised) took \(took)")
            #expect(devices.map(\.friendlyName) == ["10.203.\(lan.subnet).13", "Speaker 0", "Speaker 1", "Speaker 2"])
            for index in 0..<3 {
                let device = try #require(devices.first { $0.friendlyName == "Speaker \(index)" })
                #expect(device.id == emulators[index].advertisement.id)
                #expect(device.modelName == emulators[index].advertisement.modelName)
                #expect(device.capabilities == emulators[index].advertisement.capabilities)
                #expect(device.addresses == [IPAddress(lan.address(ofDevice: index))!])
                #expect(device.port == 8009)
                #expect(device.source == .unicast)
            }
            let bare = try #require(devices.first)
            #expect(bare.id == "\(lan.address(ofDevice: 3)):8009")
            #expect(bare.modelName.isEmpty)
            // Each one was listed as it came, through the same events as mDNS.
            for _ in 0..<4 { try await log.nextFound(within: .seconds(2)) }
            #expect(discovery.devices.count == 4)
            await discovery.stop()
            #expect(discovery.devices.isEmpty)
        }
    }

    /// A device the scan found is asked again at its address, as it was found: by DNS-SD, or
    /// — for one whose Cast port is open but that answers no DNS-SD — at its port. While they
    /// answer they stay listed; once they stop (their links down), each is lost as expired
    /// after two unanswered asks, as an mDNS device is when its records run out.
    @Test func aScannedDeviceThatStopsAnsweringExpires() async throws {
        try await Self.withDevices(2, advertised: [0]) { lan, emulators, loops, responders in
            var configuration = Self.browsing
            configuration.unicastRefreshInterval = .milliseconds(500)
            let discovery = DiscoveryManager(configuration: configuration, eventLoopGroup: loops, logger: quietLogger)
            let log = EventLog(discovery.events())
            try await discovery.start()
            let ids = Set([emulators[0].advertisement.id, "\(lan.address(ofDevice: 1)):8009"])
            let devices = try await discovery.scan(try #require(IPv4Network(lan.network)))
            #expect(Set(devices.map(\.id)) == ids)
            // Refreshes answered (each DNS-SD ask that went unanswered would be a miss after 2 s):
            // once device 0 has answered an ask 4 s after the scan (the asks come every 0.5 s;
            // two misses would have lost a device by then), still listed, nothing lost.
            let scanned = ContinuousClock.now
            let responder = try #require(responders[0])
            #expect(
                try await waitUntil(within: .seconds(20)) {
                    responder.answers.last.map { $0 - scanned >= .seconds(4) } ?? false
                }, "device 0 was not asked again: \(responder.answers)")
            #expect(Set(discovery.devices.map(\.id)) == ids)
            #expect(!log.events.contains { $0.lossReason != nil })

            for device in lan.devices { try NamespacePair.ip("-n", device, "link", "set", "eth0", "down") }
            var lost: Set<String> = []
            while lost.count < 2 {
                let event = try await log.next("lost", within: .seconds(10)) { $0.lossReason != nil }
                #expect(event.lossReason == .expired)
                lost.insert(event.device.id)
            }
            #expect(lost == ids)
            #expect(discovery.devices.isEmpty)
            await discovery.stop()
        }
    }

    @Test func aRangeWiderThanASlash16IsRefused() async throws {
        let discovery = DiscoveryManager(configuration: Self.browsing, logger: quietLogger)
        await #expect(throws: DiscoveryError(.scanRangeTooLarge, "")) {
            try await discovery.scan(IPv4Network("10.0.0.0/8")!)
        }
    }

    /// A known host is listed by its address at once, then filled in from its own DNS-SD
    /// answer by unicast: its id, name and model.
    @Test func aKnownHostIsFilledInFromItsOwnUnicastAnswer() async throws {
        try await Self.withDevices(1, advertised: [0]) { lan, emulators, loops, _ in
            let discovery = DiscoveryManager(configuration: Self.browsing, eventLoopGroup: loops, logger: quietLogger)
            let log = EventLog(discovery.events())
            try await discovery.start()
            let address = try #require(IPAddress(lan.address(ofDevice: 0)))
            let added = await discovery.addKnownHost(address)
            #expect(added.friendlyName == lan.address(ofDevice: 0))
            let event = try await log.next("updated") { if case .updated = $0 { true } else { false } }
            guard case .updated(let device, let changes) = event else { return }
            #expect(changes.contains(.friendlyName))
            #expect(device.friendlyName == "Speaker 0")
            #expect(device.id == emulators[0].advertisement.id)
            #expect(device.source == .knownHost)
            #expect(await discovery.queryHost(address).map(\.id) == [emulators[0].advertisement.id])
            await discovery.stop()
        }
    }

    /// A device seen once is remembered; a later manager whose multicast is dropped reaches it
    /// through the cache (the device's own unicast answer at the remembered address), while a
    /// stale entry — another device's id at that address — is never listed. The cache file
    /// survives the manager.
    @Test func theCacheBringsBackADeviceSeenBeforeAndNeverAStaleEntry() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cast-devices-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try await Self.withDevices(2, advertised: [0, 1], dropMulticast: false) { lan, emulators, loops, responders in
            var configuration = Self.browsing
            configuration.deviceCache = DeviceCache(fileURL: file)
            let first = DiscoveryManager(configuration: configuration, eventLoopGroup: loops, logger: quietLogger)
            let firstLog = EventLog(first.events())
            try await first.start()
            try await firstLog.nextFound()
            try await firstLog.nextFound()
            await first.stop()
            // The cache file is written in the background: both entries within 10 s.
            var remembered = DeviceCache(fileURL: file).entries
            _ = try await waitUntil(within: .seconds(10)) {
                remembered = DeviceCache(fileURL: file).entries
                return remembered.count >= emulators.count
            }
            #expect(Set(remembered.map(\.id)) == Set(emulators.map(\.advertisement.id)))

            // Device 1's entry now points at device 0's address: stale.
            let cache = DeviceCache(fileURL: file)
            var stale = try #require(remembered.first { $0.id == emulators[1].advertisement.id })
            stale.addresses = [lan.address(ofDevice: 0)]
            try cache.remove(id: stale.id)
            try Data(JSONEncoder.cacheFile.encode([stale] + cache.entries)).write(to: file)

            try lan.dropMulticast()
            let second = DiscoveryManager(configuration: configuration, eventLoopGroup: loops, logger: quietLogger)
            let responder = try #require(responders[0])
            let answered = responder.answers.count
            let secondLog = EventLog(second.events())
            let started = ContinuousClock.now
            try await second.start()
            let device = try await secondLog.nextFound()
            print("cache warm: first device after \(ContinuousClock.now - started)")
            #expect(device.id == emulators[0].advertisement.id)
            #expect(device.source == .unicast)
            // Both entries asked at device 0's address (the stale one too) and answered: only
            // device 0 is listed, whatever the stale entry claimed.
            #expect(
                try await waitUntil(within: .seconds(20)) { responder.answers.count >= answered + 2 },
                "device 0 was not asked twice more: \(responder.answers)")
            #expect(second.devices.map(\.id) == [emulators[0].advertisement.id])
            await second.stop()
        }
    }
}

extension JSONEncoder {
    /// The encoding ``DeviceCache`` writes.
    static var cacheFile: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }
}
