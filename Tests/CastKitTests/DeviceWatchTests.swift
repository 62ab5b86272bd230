import CastEmulator
import CastKit
import CastTestSupport
import Testing

/// ``DeviceWatch`` against the emulator in memory: the receiver's status
/// first, an app another sender launches told as started, its media joined
/// and followed, the app told as stopped, and the connection's end last.
@Suite(.timeLimit(.minutes(1))) struct DeviceWatchTests {
    @Test func appsStartingAndStoppingAndTheirMediaAreToldUntilTheConnectionDrops() async throws {
        let emulator = try CastEmulator(logger: StreamingFixture.logger)
        try await emulator.start()
        let connect = { try await emulator.inMemoryLink(logger: StreamingFixture.logger) }
        let watched = try await connect()
        let events = DeviceWatch(link: watched).events()
        let status = await first(events) { if case .receiver(.statusChanged) = $0 { true } else { false } }
        #expect(status != nil, "no receiver status first")

        let sender = try await connect()
        let media = try await sender.mediaClient()
        let started = await first(events) { if case .applicationStarted = $0 { true } else { false } }
        guard case .applicationStarted(let app)? = started else {
            Issue.record("the launch was not told")
            return
        }
        #expect(app.appID == CastApplicationID.defaultMediaReceiver)
        _ = try await media.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/film.mp4", contentType: "video/mp4")
            ))
        let playing = await first(events) { event in
            guard case .media(.statusChanged(let status?)) = event else { return false }
            return status.media?.contentID == "https://media.example/film.mp4"
        }
        #expect(playing != nil, "the watch did not follow the media app's status")

        _ = try await sender.receiver.stop(sessionID: try #require(app.sessionID))
        let stopped = await first(events) { if case .applicationStopped = $0 { true } else { false } }
        #expect(stopped != nil, "the stop was not told")
        media.detach()
        await sender.close()

        await emulator.stop()
        let dropped = await first(events) { if case .disconnected = $0 { true } else { false } }
        #expect(dropped != nil, "the connection's end was not told")
        await watched.close()
    }
}
