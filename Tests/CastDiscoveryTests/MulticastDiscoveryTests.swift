@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import NIOPosix
import Testing

/// Browser and responder in two network namespaces joined by a veth pair:
/// real multicast on a real link, nothing on the machine's own interfaces.
@Suite(
    "Discovery over real multicast",
    .timeLimit(.minutes(10)),
    .serialized,
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces")
)
struct MulticastDiscoveryTests {
    static let deviceID = "4c5b2f1e9a8d4b7c8e6f1a2b3c4d5e6f"

    /// Runs a responder for `advertisements` in namespace `a` and a browser in `b`.
    func withDiscovery(
        _ advertisements: [CastAdvertisement],
        responderFamilies: AddressFamilies = .all,
        browser configuration: DiscoveryConfiguration = DiscoveryConfiguration(
            interfacePollInterval: .milliseconds(300)),
        _ body: (NamespacePair, [MDNSResponder], DiscoveryManager, EventLog) async throws -> Void
    ) async throws {
        try await NamespacePair.with { pair in
            let groupA = try pair.eventLoopGroup(in: pair.a)
            let responders = advertisements.map {
                MDNSResponder(
                    advertisement: $0, addressFamilies: responderFamilies, eventLoopGroup: groupA, logger: quietLogger)
            }
            let result = await outcome {
                for responder in responders { try await responder.start() }
                try await pair.withBrowser(in: pair.b, configuration: configuration) { discovery, log in
                    try await body(pair, responders, discovery, log)
                }
            }
            for responder in responders { await responder.stop() }
            try await groupA.shutdownGracefully()
            try result.get()
        }
    }

    /// `cast-receiver --devices N` advertises through one responder (one
    /// socket per interface, each device answering in its own datagram);
    /// one of the devices carries a TXT record that makes its answer some
    /// 3 300 bytes, which the browser read cut at NIO's default 2 048 and
    /// dropped as malformed. Once all are known, the browser's next query
    /// lists them over two datagrams and none answers again.
    @Test(
        "One responder for forty devices, one answering in a 3 300-byte datagram: all forty are found, then stay silent"
    )
    func oneResponderForManyDevices() async throws {
        var advertisements = (1...40).map { index in
            CastAdvertisement(
                id: String(repeating: String(format: "%02x", index), count: 16), friendlyName: "Room \(index)",
                port: 20_000 + index)
        }
        advertisements[7].extraAttributes = Dictionary(
            uniqueKeysWithValues: (0..<12).map { ("x\($0)", String(repeating: "v", count: 240)) })
        try await NamespacePair.with { pair in
            let groupA = try pair.eventLoopGroup(in: pair.a)
            let responder = MDNSResponder(advertisements: advertisements, eventLoopGroup: groupA, logger: quietLogger)
            let result = await outcome {
                try await responder.start()
                try await pair.withBrowser(in: pair.b) { discovery, log in
                    for _ in 0..<40 { _ = try await log.nextFound() }
                    #expect(Set(discovery.devices.map(\.id)) == Set(advertisements.map(\.id)))
                    let big = try #require(discovery.devices.first { $0.friendlyName == "Room 8" })
                    #expect(big.txtRecord["x11"]?.count == 240)
                    #expect(big.port == 20_008)
                    // The next query lists all forty as known over two datagrams (TC on the
                    // first): the responder waits for the second and, every answer known, stays
                    // silent. (Not "no answer at all": a question still asked about one device, or
                    // a second datagram later than the responder's 500 ms under a sanitizer and a
                    // busy core, is answered, as the RFC's responder would; the next query is not.)
                    let before = responder.answers
                    #expect(
                        try await waitUntil(within: .seconds(30)) { responder.answers.suppressed > before.suppressed },
                        "known devices answered again: \(responder.answers)")
                }
            }
            await responder.stop()
            try await groupA.shutdownGracefully()
            try result.get()
        }
    }

    @Test("A device is found with every TXT field, its port and its addresses")
    func foundWithEveryField() async throws {
        var advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Wohnzimmer – Fernseher")
        advertisement.status = .busy
        advertisement.runningAppStatus = "Casting: YouTube"
        try await self.withDiscovery([advertisement]) { pair, _, discovery, log in
            let device = try await log.nextFound()
            #expect(device.id == Self.deviceID)
            #expect(device.friendlyName == "Wohnzimmer – Fernseher")
            #expect(device.modelName == "Chromecast")
            #expect(device.iconPath == "/setup/icon.png")
            #expect(device.capabilities.rawValue == 465_413)
            #expect(device.capabilities.contains([.videoOut, .audioOut]))
            #expect(device.status == .busy)
            #expect(device.protocolVersion == 5)
            #expect(device.runningAppStatus == "Casting: YouTube")
            #expect(device.port == 8009)
            #expect(!device.isGroup)
            #expect(device.instanceName == "Chromecast-\(Self.deviceID)")
            #expect(device.hostName == "4c5b2f1e-9a8d-4b7c-8e6f-1a2b3c4d5e6f.local")
            #expect(device.txtRecord["bs"] == "FA8FCA7A2B1C")
            #expect(device.txtRecord["nf"] == "1")
            #expect(device.source == .multicastDNS)
            #expect(device.addresses.first == IPAddress(pair.ipv4(pair.a)))
            #expect(discovery.devices.map(\.id) == [Self.deviceID])
        }
    }

    @Test("A changed advertisement arrives as an update naming what changed")
    func updated() async throws {
        let advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Kitchen")
        try await self.withDiscovery([advertisement]) { _, responders, discovery, log in
            try await log.next("found") { $0.found != nil }
            var changed = advertisement
            changed.friendlyName = "Kitchen speaker"
            changed.status = .busy
            changed.runningAppStatus = "Spotify"
            await responders[0].update(changed)
            let event = try await log.next("updated") { $0.changes != nil }
            #expect(event.changes == [.friendlyName, .status, .runningAppStatus])
            #expect(event.device.friendlyName == "Kitchen speaker")
            #expect(discovery.devices.map(\.friendlyName) == ["Kitchen speaker"])
        }
    }

    @Test("A device that says goodbye is lost with reason goodbye")
    func lostByGoodbye() async throws {
        let advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Bedroom")
        try await self.withDiscovery([advertisement]) { _, responders, discovery, log in
            try await log.next("found") { $0.found != nil }
            await responders[0].stop(sendingGoodbye: true)
            let event = try await log.next("lost") { $0.lossReason != nil }
            #expect(event.lossReason == .goodbye)
            #expect(event.device.id == Self.deviceID)
            #expect(discovery.devices.isEmpty)
        }
    }

    @Test("Refresh queries keep a short-TTL device alive; silence lets it expire")
    func lostByExpiry() async throws {
        var advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Office")
        // 4 s: the first refresh query (at 80 %) leaves 0.8 s for the answer, room enough on a loaded machine.
        advertisement.serviceTTL = 4
        advertisement.hostTTL = 4
        try await self.withDiscovery([advertisement]) { _, responders, discovery, log in
            try await log.next("found") { $0.found != nil }
            let found = ContinuousClock.now
            // Over two TTLs: only the refresh queries at 80-95 % keep the records alive. Once the
            // responder has answered a query 9 s after the find, nothing may have been lost.
            #expect(
                try await waitUntil(within: .seconds(30)) {
                    responders[0].answers.last.map { $0 - found >= .seconds(9) } ?? false
                }, "no query answered 9 s after the find: \(responders[0].answers)")
            #expect(!log.events.contains { $0.lossReason != nil }, "lost while the responder answered")
            await responders[0].stop(sendingGoodbye: false)
            let event = try await log.next("lost") { $0.lossReason != nil }
            #expect(event.lossReason == .expired)
            #expect(discovery.devices.isEmpty)
        }
    }

    @Test("Several devices and a group, listed by friendly name; a capability filter keeps the group")
    func severalDevicesAndAGroup() async throws {
        let advertisements = [
            CastAdvertisement(id: "11111111111111111111111111111111", friendlyName: "living room"),
            CastAdvertisement(
                id: "22222222222222222222222222222222", friendlyName: "Attic", modelName: "Google Home Mini",
                capabilities: CastDeviceCapabilities(rawValue: 198_660)),
            .group(id: "33333333-3333-3333-3333-333333333333", friendlyName: "Everywhere"),
        ]
        try await self.withDiscovery(advertisements) { _, _, discovery, log in
            for _ in 0..<3 { try await log.next("three devices") { $0.found != nil } }
            #expect(discovery.devices.map(\.friendlyName) == ["Attic", "Everywhere", "living room"])
            let group = try #require(discovery.devices.first { $0.friendlyName == "Everywhere" })
            #expect(group.isGroup)
            #expect(group.port == 32_254)
            #expect(group.modelName == "Google Cast Group")
            #expect(group.capabilities.contains(.multizoneGroup))
            #expect(group.instanceName == "Google-Cast-Group-33333333333333333333333333333333")
            #expect(discovery.devices.filter(\.isGroup).count == 1)

            await discovery.setFilter(DeviceFilter(requiredCapabilities: .multizoneGroup))
            #expect(discovery.devices.map(\.friendlyName) == ["Everywhere"])
            for _ in 0..<2 {
                let lost = try await log.next("filtered out") { $0.lossReason != nil }
                #expect(lost.lossReason == .filteredOut)
                #expect(!lost.device.isGroup)
            }
        }
    }

    @Test("Over IPv6 alone a device is found with its global and link-local addresses")
    func ipv6() async throws {
        let advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "IPv6 only")
        let configuration = DiscoveryConfiguration(addressFamilies: .ipv6, interfacePollInterval: .milliseconds(300))
        try await self.withDiscovery([advertisement], responderFamilies: .ipv6, browser: configuration) {
            pair, _, _, log in
            let device = try await log.nextFound()
            #expect(device.friendlyName == "IPv6 only")
            // The responder knows both its addresses; the browser heard them over IPv6 only.
            #expect(device.addresses.contains(IPAddress(pair.ipv6(pair.a))!))
            let linkLocal = device.addresses.compactMap { address -> IPAddress.V6? in
                if case .v6(let v6) = address, v6.isLinkLocal { v6 } else { nil }
            }
            #expect(linkLocal.count == 1)
            #expect(linkLocal.first?.zone == pair.interface(in: pair.b))
        }
    }

    @Test("An interface going down loses its devices; coming back up finds them again")
    func interfaceDownAndUp() async throws {
        let advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Den")
        try await self.withDiscovery([advertisement]) { pair, _, discovery, log in
            try await log.next("found") { $0.found != nil }
            try pair.setLink(in: pair.b, up: false)
            let lost = try await log.next("lost") { $0.lossReason != nil }
            #expect(lost.lossReason == .interfaceDown)
            #expect(discovery.devices.isEmpty)
            try pair.setLink(in: pair.b, up: true)
            let found = try await log.next("found again") { $0.found != nil }
            #expect(found.device.id == Self.deviceID)
        }
    }

    @Test("A known host that mDNS then finds is replaced by the found device")
    func knownHostReplaced() async throws {
        try await self.withDiscovery([]) { pair, _, discovery, log in
            let known = await discovery.addKnownHost(IPAddress(pair.ipv4(pair.a))!)
            #expect(try await log.nextFound() == known)
            let group = try pair.eventLoopGroup(in: pair.a)
            let responder = MDNSResponder(
                advertisement: CastAdvertisement(id: Self.deviceID, friendlyName: "Projector"),
                addressFamilies: .ipv4, eventLoopGroup: group, logger: quietLogger)
            try await responder.start()
            let result = await outcome {
                let lost = try await log.next("replaced") { $0.lossReason != nil }
                #expect(lost == .lost(known, reason: .replaced))
                #expect(discovery.devices.map(\.friendlyName) == ["Projector"])
                #expect(discovery.devices.first?.source == .multicastDNS)
            }
            await responder.stop()
            try await group.shutdownGracefully()
            try result.get()
        }
    }
}
