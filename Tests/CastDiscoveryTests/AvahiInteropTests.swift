@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import Foundation
import Testing

/// Our browser beside avahi-daemon, which most Linux desktops run and which
/// then holds port 5353: the two share the port and each sees every
/// advertisement — one from another host (our responder in the other
/// namespace) and one avahi-daemon publishes itself (`avahi-publish`).
@Suite(
    "Beside avahi-daemon",
    .timeLimit(.minutes(10)),
    .serialized,
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"),
    .enabled(if: AvahiDaemon.isInstalled, "needs avahi-daemon, avahi-utils and dbus-daemon (make setup installs them)")
)
struct AvahiInteropTests {
    static let emulatedID = "5e1f0c2b3a4d5e6f708192a3b4c5d6e7"
    static let publishedID = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"

    @Test("avahi-daemon and our browser in one namespace both see a remote advertisement and avahi's own")
    func bothSeeBothAdvertisements() async throws {
        try await NamespacePair.with { pair in
            try await AvahiDaemon.with(in: pair.a, interface: pair.interface(in: pair.a)) { avahi in
                let group = try pair.eventLoopGroup(in: pair.b)
                let responder = MDNSResponder(
                    advertisement: CastAdvertisement(id: Self.emulatedID, friendlyName: "Emulated TV"),
                    addressFamilies: .ipv4, eventLoopGroup: group, logger: quietLogger)
                let published = try avahi.publish(
                    name: "Chromecast-\(Self.publishedID)", type: "_googlecast._tcp", port: 8009,
                    txt: [
                        "id=\(Self.publishedID)", "fn=Avahi TV", "md=Chromecast Ultra", "ca=4101", "st=0", "ve=05",
                    ])
                let result = await outcome {
                    try await responder.start()
                    // Ours, started after avahi-daemon took port 5353.
                    try await pair.withBrowser(
                        in: pair.a, configuration: DiscoveryConfiguration(addressFamilies: .ipv4)
                    ) {
                        _, log in
                        var found: [String: CastDevice] = [:]
                        while found.count < 2 {
                            let device = try await log.nextFound()
                            found[device.id] = device
                        }
                        let remote = try #require(found[Self.emulatedID])
                        #expect(remote.friendlyName == "Emulated TV")
                        #expect(remote.addresses.contains(IPAddress(pair.ipv4(pair.b))!))
                        let avahis = try #require(found[Self.publishedID])
                        #expect(avahis.friendlyName == "Avahi TV")
                        #expect(avahis.modelName == "Chromecast Ultra")
                        #expect(avahis.capabilities.rawValue == 4101)
                        #expect(avahis.port == 8009)
                        #expect(avahis.addresses.contains(IPAddress(pair.ipv4(pair.a))!))
                        #expect(avahis.hostName == "cast-avahi-\(getpid()).local")
                    }
                    // avahi-daemon's own browser, beside ours, sees both too.
                    let services = try await retrying(attempts: 10, every: .milliseconds(500)) {
                        let services = try await avahi.browse("_googlecast._tcp")
                        let ids = Set(services.flatMap(\.txt).filter { $0.hasPrefix("id=") })
                        guard ids.isSuperset(of: ["id=\(Self.emulatedID)", "id=\(Self.publishedID)"]) else {
                            throw TimedOut(what: "avahi-browse listing both devices (it listed \(ids.sorted()))")
                        }
                        return services
                    }
                    let remote = try #require(services.first { $0.txt.contains("id=\(Self.emulatedID)") })
                    #expect(remote.address == pair.ipv4(pair.b))
                    #expect(remote.port == 8009)
                    #expect(remote.txt.contains("fn=Emulated TV"))
                }
                await published.stop()
                await responder.stop()
                try await group.shutdownGracefully()
                try result.get()
            }
        }
    }
}
