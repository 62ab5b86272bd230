@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import Testing

/// The manager's own behaviour: lifecycle, known hosts, the list and its streams.
/// With no interface selected nothing goes on any network.
@Suite("Discovery manager", .timeLimit(.minutes(10)))
struct DiscoveryManagerTests {
    static let offline = DiscoveryConfiguration(interfaces: .named([]))

    @Test("Starting twice fails with alreadyStarted; stop then start works")
    func lifecycle() async throws {
        let discovery = DiscoveryManager(configuration: Self.offline, logger: quietLogger)
        try await discovery.start()
        await #expect(throws: DiscoveryError(.alreadyStarted, "")) { try await discovery.start() }
        await discovery.stop()
        try await discovery.start()
        await discovery.stop()
    }

    @Test("Known hosts join the list sorted by name, reach every stream, and leave when removed")
    func knownHosts() async throws {
        let discovery = DiscoveryManager(configuration: Self.offline, logger: quietLogger)
        let log = EventLog(discovery.events())
        let kitchen = await discovery.addKnownHost(IPAddress("192.168.7.20")!, friendlyName: "kitchen")
        #expect(kitchen.id == "192.168.7.20:8009")
        #expect(kitchen.source == .knownHost)
        let attic = await discovery.addKnownHost(IPAddress("fd00::9")!, port: 8010, friendlyName: "Attic")
        #expect(attic.id == "[fd00::9]:8010")
        #expect(attic.isGroup, "a port other than 8009 is a group's")
        #expect(discovery.devices.map(\.friendlyName) == ["Attic", "kitchen"])
        #expect(try await log.nextFound() == kitchen)
        #expect(try await log.nextFound() == attic)

        // A late subscriber starts with the current list.
        let late = EventLog(discovery.events())
        #expect(Set([try await late.nextFound(), try await late.nextFound()]) == [kitchen, attic])

        await discovery.removeKnownHost(IPAddress("192.168.7.20")!)
        let lost = try await log.next("lost") { $0.lossReason != nil }
        #expect(lost == .lost(kitchen, reason: .removed))
        #expect(discovery.devices == [attic])
    }

    @Test("A filter hides what it rejects and shows it again when replaced")
    func filter() async throws {
        let discovery = DiscoveryManager(configuration: Self.offline, logger: quietLogger)
        let log = EventLog(discovery.events())
        let device = await discovery.addKnownHost(IPAddress("10.1.1.1")!)
        try await log.nextFound()
        await discovery.setFilter(DeviceFilter(isIncluded: { $0.friendlyName != "10.1.1.1" }))
        #expect(try await log.next("filtered") { $0.lossReason != nil } == .lost(device, reason: .filteredOut))
        #expect(discovery.devices.isEmpty)
        await discovery.setFilter(DeviceFilter())
        #expect(try await log.nextFound() == device)
    }

    @Test(
        "On loopback, inside a namespace, the emulator advertises itself and is found when asked for",
        .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces")
    )
    func loopback() async throws {
        try await NamespacePair.with { pair in
            let group = try pair.eventLoopGroup(in: pair.a)
            let emulator = try CastEmulator(
                configuration: CastEmulatorConfiguration(name: "Emulated TV"), eventLoopGroup: group,
                logger: quietLogger)
            try await emulator.start()
            let responder = emulator.makeResponder(addressFamilies: .ipv4)
            try await responder.start()
            let result = await outcome {
                // The default selection leaves loopback out ...
                try await pair.withBrowser(in: pair.a, configuration: DiscoveryConfiguration(addressFamilies: .ipv4)) {
                    discovery, log in
                    try await Task.sleep(for: .seconds(1.5))
                    #expect(discovery.devices.isEmpty)
                }
                // ... and loopback alone finds the emulator at 127.0.0.1 (and ::1, which loopback also has).
                let configuration = DiscoveryConfiguration(interfaces: .loopbackOnly, addressFamilies: .ipv4)
                try await pair.withBrowser(in: pair.a, configuration: configuration) { _, log in
                    let device = try await log.nextFound()
                    #expect(device.addresses == [IPAddress("127.0.0.1")!, IPAddress("::1")!])
                    #expect(device.friendlyName == "Emulated TV")
                    #expect(device.port == emulator.port)
                    #expect(device.id == emulator.advertisement.id)
                    #expect(device.id.count == 32)
                }
            }
            await responder.stop()
            await emulator.stop()
            try await group.shutdownGracefully()
            try result.get()
        }
    }
}
