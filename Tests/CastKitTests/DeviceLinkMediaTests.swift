import CastCommon
import CastEmulator
import CastKit
import CastTestSupport
import NIOConcurrencyHelpers
import Testing

/// The device link's launch-or-join, which every `cast` media command and
/// `cast play` use: against the emulator in memory, a media client
/// launches the Default Media Receiver when no media app runs and joins the
/// one that runs otherwise — one LAUNCH in all.
@Suite(.timeLimit(.minutes(1))) struct DeviceLinkMediaTests {
    @Test func aMediaClientLaunchesTheMediaAppOnceAndJoinsItAfter() async throws {
        let emulator = try CastEmulator(logger: StreamingFixture.logger)
        try await emulator.start()
        let events = emulator.events()
        do {
            var sessions: [String?] = []
            for round in 0..<2 {
                let link = try await emulator.inMemoryLink(logger: StreamingFixture.logger)
                let media = try await link.mediaClient(requestTimeout: .seconds(10))
                #expect(media.isConnected)
                let status = try await link.receiver.requestStatus()
                sessions.append(status.runningApplication(appID: CastApplicationID.defaultMediaReceiver)?.sessionID)
                media.detach()
                if round == 1 {
                    // A mark after everything the links sent: the events up to it are all there are.
                    let mark = try GenericChannel(namespace: "urn:x-cast:com.example.mark")
                    mark.attach(
                        to: link.connection, destinationID: CastEndpointID.receiverPlatform,
                        logger: StreamingFixture.logger)
                    try await mark.sendTextMessage("{}")
                }
                await link.close()
            }
            #expect(sessions.count == 2 && sessions[0] != nil && sessions[0] == sessions[1], "\(sessions)")
            // The second link joined the app the first launched: one LAUNCH was sent before the mark.
            let launchCount = NIOLockedValueBox(0)
            let seen = await collect(events, count: 1, within: .seconds(10)) { event -> Bool? in
                guard case .messageReceived(_, let message) = event else { return nil }
                if message.text?.contains(#""LAUNCH""#) == true { launchCount.withLockedValue { $0 += 1 } }
                return message.namespace == "urn:x-cast:com.example.mark" ? true : nil
            }
            #expect(seen.count == 1, "the mark did not arrive")
            let launches = launchCount.withLockedValue { $0 }
            #expect(launches == 1, "\(launches) LAUNCH messages")
        } catch {
            Issue.record(error)
        }
        await emulator.stop()
    }
}
