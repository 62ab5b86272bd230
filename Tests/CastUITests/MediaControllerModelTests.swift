import CastEmulator
import CastKit
import CastTestSupport
import CastUI
import Testing

/// The media controller's own timer, at virtual time.
@Suite(.timeLimit(.minutes(3))) struct MediaControllerModelTests {
    /// While media plays, the position is published again at each interval
    /// of the model's clock. (Before: the ticks slept on the wall clock.)
    @Test func whilePlayingThePositionIsRepublishedAtEachIntervalOfTheModelsClock() async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(mediaClock: .manual()), logger: quietLogger)
        try await emulator.start()
        defer { Task { await emulator.stop() } }
        let manager = SessionManager(options: uiOptions(joining: [emulator]))
        let clock = ManualClock()
        let controller = MediaControllerModel(sessionManager: manager, positionInterval: .seconds(1), clock: clock)
        defer { controller.close() }
        let log = StateLog(controller.updates())
        let session = try await manager.startSession(on: emulator.loopbackDevice)
        let client = try #require(session.remoteMediaClient)
        try await client.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/a.mp4", contentType: "video/mp4", duration: 600)))
        emulator.advanceMediaClock(by: .milliseconds(100))
        try #require(await log.wait { $0.playerState == .playing } != nil)
        for second in 1...3 {
            // The tick for this second is armed; advancing to it publishes the position once more.
            await clock.sleeper(until: ManualClock.Instant(offset: .seconds(second)))
            let published = log.all.count
            clock.advance(by: .seconds(1))
            #expect(await log.wait { _ in log.all.count > published } != nil, "tick \(second)")
        }
        #expect(log.latest?.playerState == .playing)
        await manager.endSession()
    }
}
