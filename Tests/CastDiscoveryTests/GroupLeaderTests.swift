@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import NIOPosix
import Testing

/// A speaker group is its own service on its elected leader's address and
/// a port of its own (Docs/spec/cast-streaming.md, groups); when leadership
/// moves to another member, the service moves with it, and the browser
/// follows the one device to its new address and port. A session
/// reconnecting then re-resolves the device there
/// (`SessionManager.resolve`, tested by `SessionAddressChangeTests`).
@Suite(
    "A speaker group whose leader changes",
    .timeLimit(.minutes(10)),
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces")
)
struct GroupLeaderTests {
    static let groupID = "7c0ffee0123456789abcdef012345678"

    @Test func theGroupIsFollowedToItsNewLeaderWithoutBeingLost() async throws {
        try await BridgedLAN.with(devices: 2) { lan in
            var loops: [MultiThreadedEventLoopGroup] = []
            var responders: [MDNSResponder] = []
            let result = await outcome {
                for (index, port) in [32_254, 42_238].enumerated() {
                    let group = try NamespacePair.eventLoopGroup(inNamespace: lan.devices[index])
                    loops.append(group)
                    responders.append(
                        MDNSResponder(
                            advertisement: .group(id: Self.groupID, friendlyName: "Living Room speakers", port: port),
                            interfaces: .named(["eth0"]), addressFamilies: .ipv4, eventLoopGroup: group,
                            logger: quietLogger))
                }
                let senderLoops = try NamespacePair.eventLoopGroup(inNamespace: lan.sender)
                loops.append(senderLoops)
                let discovery = DiscoveryManager(
                    configuration: DiscoveryConfiguration(addressFamilies: .ipv4), eventLoopGroup: senderLoops,
                    logger: quietLogger)
                let log = EventLog(discovery.events())
                let watched = await outcome {
                    try await responders[0].start()
                    try await discovery.start()
                    let found = try await log.nextFound()
                    #expect(found.isGroup)
                    #expect(found.port == 32_254)
                    #expect(found.addresses == [IPAddress(lan.address(ofDevice: 0))!])

                    // The hand-over: the new leader announces the group, then the old one says goodbye.
                    try await responders[1].start()
                    await responders[0].stop()
                    try await log.next("the group at its new leader") { event in
                        guard case .updated(let device, _) = event else { return false }
                        return device.port == 42_238 && device.addresses == [IPAddress(lan.address(ofDevice: 1))!]
                    }
                    // The old leader's goodbye named the group's PTR and TXT, which the new leader
                    // still owns: it announces them again within the goodbye's second (RFC 6762 §10.1),
                    // so the one group stays listed, at the new leader, and is never lost.
                    let newLeader = responders[1]
                    #expect(try await waitUntil(within: .seconds(20)) { newLeader.answers.rescinded > 0 })
                    #expect(discovery.devices.map(\.id) == [Self.groupID])
                    #expect(discovery.devices.first?.port == 42_238)
                    #expect(discovery.devices.first?.addresses == [IPAddress(lan.address(ofDevice: 1))!])
                    #expect(!log.events.contains { $0.lossReason != nil })
                }
                await discovery.stop()
                try watched.get()
            }
            for responder in responders { await responder.stop(sendingGoodbye: false) }
            for group in loops { try? await group.shutdownGracefully() }
            try result.get()
        }
    }
}
