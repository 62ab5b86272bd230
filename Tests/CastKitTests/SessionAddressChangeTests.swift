import CastEmulator
import CastKit
import CastTestSupport
import NIOPosix
import Testing

/// A receiver that comes back at a new address is found again through
/// discovery: real mDNS between two network namespaces, the sender's
/// ``CastContext`` in one, the emulator and its responder in the other.
@Suite(
    "Sessions across an address change",
    .timeLimit(.minutes(10)),
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces")
)
struct SessionAddressChangeTests {
    @Test func aReceiverThatMovesToANewPortIsReResolvedAndRejoined() async throws {
        try await NamespacePair.with { pair in
            let senderLoops = try pair.eventLoopGroup(in: pair.a)
            let receiverLoops = try pair.eventLoopGroup(in: pair.b)
            let emulator = try CastEmulator(
                configuration: CastEmulatorConfiguration(host: pair.ipv4(pair.b), name: "Moving Emulator"),
                eventLoopGroup: receiverLoops, logger: quietLogger)
            try await emulator.start()
            let responder = emulator.makeResponder(interfaces: .automatic(), addressFamilies: .ipv4)
            // The responder picks interfaces when it starts: wait until the new veth end is running.
            try await retrying { try await responder.start() }
            let context = CastContext(
                options: CastOptions(
                    discovery: DiscoveryConfiguration(
                        addressFamilies: .ipv4, interfacePollInterval: .milliseconds(300)),
                    reconnectPolicy: quickReconnect,
                    logger: quietLogger),
                eventLoopGroup: senderLoops)
            let log = SessionEventLog(context.sessionManager.events())
            let result: Result<Void, any Error>
            do {
                try await context.discoveryManager.start()
                let id = emulator.advertisement.id
                let discovered = await first(context.discoveryManager.events(), within: .seconds(10)) {
                    $0.device.id == id
                }
                let device = try #require(discovered?.device)
                let oldPort = emulator.port
                #expect(device.port == oldPort)
                #expect(device.addresses.map(\.description).contains(pair.ipv4(pair.b)))

                let session = try await context.sessionManager.startSession(on: device)
                let sessionID = session.sessionID
                await emulator.stop()
                #expect(await log.wait(for: "suspended(connectionLost)") != nil)
                try await emulator.start(port: 0)
                #expect(emulator.port != oldPort)
                await responder.update(emulator.advertisement)

                guard case .resumed(_, let resumedOn)? = await log.wait(for: "resumed", within: .seconds(20)) else {
                    Issue.record("the session did not resume; events: \(log.labels)")
                    throw CastSessionError(.reconnectFailed, "not resumed")
                }
                #expect(resumedOn.id == id)
                #expect(resumedOn.port == emulator.port)
                #expect(session.sessionID == sessionID)
                #expect(session.connection?.port == emulator.port)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            await context.sessionManager.endSession()
            await context.discoveryManager.stop()
            await responder.stop()
            await emulator.stop()
            try await senderLoops.shutdownGracefully()
            try await receiverLoops.shutdownGracefully()
            try result.get()
        }
    }
}
