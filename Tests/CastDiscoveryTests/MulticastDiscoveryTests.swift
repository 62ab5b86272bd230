import CastDiscovery
import CastEmulator
import NIOPosix
import Testing

/// Browser and responder in two network namespaces joined by a veth pair:
/// real multicast on a real link, nothing on the machine's own interfaces.
@Suite(
    "Discovery over real multicast",
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
            let groupB = try pair.eventLoopGroup(in: pair.b)
            let responders = advertisements.map {
                MDNSResponder(
                    advertisement: $0, addressFamilies: responderFamilies, eventLoopGroup: groupA, logger: quietLogger)
            }
            let discovery = DiscoveryManager(configuration: configuration, eventLoopGroup: groupB, logger: quietLogger)
            let log = EventLog(discovery.events())
            for responder in responders { try await responder.start() }
            try await discovery.start()
            let outcome: Result<Void, any Error>
            do {
                try await body(pair, responders, discovery, log)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await discovery.stop()
            for responder in responders { await responder.stop() }
            try await groupA.shutdownGracefully()
            try await groupB.shutdownGracefully()
            try outcome.get()
        }
    }

    @Test("A device is found with every TXT field, its port and its addresses")
    func foundWithEveryField() async throws {
        var advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Wohnzimmer – Fernseher")
        advertisement.status = .busy
        advertisement.runningAppStatus = "Casting: YouTube"
        try await self.withDiscovery([advertisement]) { pair, _, discovery, log in
            let device = try #require(try await log.next("found") { $0.found != nil }.found)
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
}
