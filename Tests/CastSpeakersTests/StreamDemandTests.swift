import CastTestSupport
import Testing

@testable import CastSpeakers

/// When a sink's stream runs, at virtual time: from the first sound until
/// the grace period of silence has passed, a pause shorter than it keeping
/// the stream.
@Suite(.timeLimit(.minutes(1))) struct StreamDemandTests {
    @Test func soundStartsTheStreamAtOnceAndTheGracePeriodOfSilenceStopsIt() async throws {
        let clock = ManualClock()
        let demand = StreamDemand(gracePeriod: .seconds(15), clock: clock)
        var changes = demand.changes.makeAsyncIterator()

        demand.update(playing: true)
        #expect(await changes.next() == true)
        #expect(demand.isWanted)
        // More sound while streaming changes nothing.
        demand.update(playing: true)

        demand.update(playing: false)
        await clock.sleeper(until: ManualClock.Instant(offset: .seconds(15)))
        clock.advance(by: .seconds(14))
        #expect(demand.isWanted, "stopped before the grace period was over")
        // A second report of silence does not restart the wait.
        demand.update(playing: false)
        clock.advance(by: .seconds(1))
        #expect(await changes.next() == false)
        #expect(!demand.isWanted)

        demand.update(playing: true)
        #expect(await changes.next() == true)
        demand.finish()
        #expect(await changes.next() == nil)
    }

    @Test func soundWithinTheGracePeriodKeepsTheStreamAndSilenceWaitsAfresh() async throws {
        let clock = ManualClock()
        let demand = StreamDemand(gracePeriod: .seconds(15), clock: clock)
        var changes = demand.changes.makeAsyncIterator()
        demand.update(playing: true)
        #expect(await changes.next() == true)

        demand.update(playing: false)
        await clock.sleeper(until: ManualClock.Instant(offset: .seconds(15)))
        clock.advance(by: .seconds(10))
        demand.update(playing: true)  // the next song
        clock.advance(by: .seconds(10))
        #expect(demand.isWanted)

        // Silence again: a whole grace period from now (20 s), not from the first silence.
        demand.update(playing: false)
        await clock.sleeper(until: ManualClock.Instant(offset: .seconds(35)))
        clock.advance(by: .seconds(14))
        #expect(demand.isWanted)
        clock.advance(by: .seconds(1))
        #expect(await changes.next() == false)
    }

    @Test func silenceBeforeAnySoundStartsNothing() async throws {
        let clock = ManualClock()
        let demand = StreamDemand(gracePeriod: .seconds(15), clock: clock)
        demand.update(playing: false)
        clock.advance(by: .seconds(60))
        demand.finish()
        var changes = demand.changes.makeAsyncIterator()
        #expect(await changes.next() == nil)
        #expect(!demand.isWanted)
    }
}
