import CastTestSupport
import Foundation
import Testing

@testable import CastSpeakers

/// ``SpeakersSupervisor`` waiting for a sound server that went away, at
/// virtual time against a real PulseAudio daemon: asked again after 0.5 s,
/// then 1 s, 2 s… as its retry policy says, and back with new speakers as
/// soon as a daemon answers at the same address. (`cast speakers`' test
/// sees the whole restart through the tool.)
@Suite(.timeLimit(.minutes(2))) struct SpeakersSupervisorTests {
    @Test func aSoundServerThatWentAwayIsAskedForOnTheRetryScheduleUntilItAnswers() async throws {
        let sound = try await SoundServer.start()
        let speakers = try CastSpeakers(
            configuration: CastSpeakersConfiguration(soundServer: sound.server), logger: CastSpeakersTests.quiet)
        let clock = ManualClock()
        let supervisor = SpeakersSupervisor(speakers, logger: CastSpeakersTests.quiet, clock: clock)
        // The daemon ends: nothing answers at its address.
        await sound.end()
        let back = Task { try await supervisor.soundServerBack(configuration: speakers.configuration) }
        var waited = Duration.zero
        // Attempts 1-3 find nobody: each waits as the policy says before asking.
        for attempt in 1...3 {
            let delay = try #require(SpeakersSupervisor.retryPolicy.delay(beforeAttempt: attempt))
            #expect(delay == .milliseconds(500) * (1 << (attempt - 1)), "attempt \(attempt)")
            waited += delay
            #expect(await clock.sleeper(until: ManualClock.Instant(offset: waited)), "attempt \(attempt)")
            clock.advance(by: delay)
        }
        // The third found nobody once the fourth wait is armed; a new daemon at the same address
        // then is found at the fourth. (Restarted before the third had asked, it was found at the
        // third: once in a fresh-clone CI.)
        let fourth = try #require(SpeakersSupervisor.retryPolicy.delay(beforeAttempt: 4))
        #expect(await clock.sleeper(until: ManualClock.Instant(offset: waited + fourth)))
        let restarted = try await sound.restarted()
        clock.advance(by: fourth)
        let found = try await back.value
        #expect(found.configuration.soundServer == sound.server)
        #expect(SpeakersSupervisor.retryPolicy.delay(beforeAttempt: 10) == .seconds(5), "capped at 5 s")
        await restarted.stop()
    }
}
