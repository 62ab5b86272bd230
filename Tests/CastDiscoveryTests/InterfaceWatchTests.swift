@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import Testing

/// Interfaces watched through rtnetlink: with the poll an hour away, a link
/// that goes down drops its devices and one that comes up is browsed at once.
@Suite(
    "Interfaces watched",
    .timeLimit(.minutes(10)),
    .serialized,
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces")
)
struct InterfaceWatchTests {
    @Test func aLinkGoingDownAndComingBackIsNoticedWithoutWaitingForThePoll() async throws {
        try await NamespacePair.with { pair in
            let groupA = try pair.eventLoopGroup(in: pair.a)
            let responder = MDNSResponder(
                advertisement: CastAdvertisement(id: "5e1f0c2d3b4a59687766554433221100", friendlyName: "Den"),
                addressFamilies: .ipv4, eventLoopGroup: groupA, logger: quietLogger)
            let result = await outcome {
                try await responder.start()
                let configuration = DiscoveryConfiguration(
                    interfaces: .named(["vB"]), addressFamilies: .ipv4, interfacePollInterval: .seconds(3600))
                try await pair.withBrowser(in: pair.b, configuration: configuration) { discovery, log in
                    try await log.nextFound()
                    let down = ContinuousClock.now
                    try pair.setLink(in: pair.b, up: false)
                    // The poll is an hour away: only the kernel's notice can bring this. How fast
                    // is printed below (44 ms alone); the wait is long for a loaded CI machine.
                    let lost = try await log.next("lost", within: .seconds(15)) { $0.lossReason != nil }
                    let lostAfter = ContinuousClock.now - down
                    #expect(lost.lossReason == .interfaceDown)
                    #expect(await discovery.queriedInterfaces.isEmpty)

                    let up = ContinuousClock.now
                    try pair.setLink(in: pair.b, up: true)
                    // The carrier comes through linkwatch up to a second after the link is up.
                    try await log.nextFound(within: .seconds(15))
                    let foundAfter = ContinuousClock.now - up
                    print("link down → device lost after \(lostAfter); link up → found after \(foundAfter)")
                }
            }
            await responder.stop(sendingGoodbye: false)
            try await groupA.shutdownGracefully()
            try result.get()
        }
    }
}
