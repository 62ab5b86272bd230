import CastTestSupport
import Testing

/// The test clock the timers' tests run on: it wakes sleepers at their
/// deadlines in order, and a test waiting for a timer that is never armed
/// fails after its patience instead of waiting out its time limit.
@Suite(.timeLimit(.minutes(1))) struct ManualClockTests {
    @Test func sleepersWakeAtTheirDeadlinesInOrder() async throws {
        let clock = ManualClock()
        let woken = WokenOrder()
        let sleepers = [3, 1, 2].map { seconds in
            Task {
                try await clock.sleep(until: ManualClock.Instant(offset: .seconds(seconds)))
                await woken.append(seconds)
            }
        }
        #expect(await clock.sleepers(atLeast: 3))
        clock.advance(by: .seconds(1) - .nanoseconds(1))
        #expect(await woken.order.isEmpty)
        clock.advance(by: .seconds(5))
        for sleeper in sleepers { try await sleeper.value }
        // Resumed in deadline order; the tasks may then run in any order.
        #expect(await woken.order.sorted() == [1, 2, 3])
    }

    @Test func aTimerNeverArmedEndsTheWaitWithAnIssue() async {
        let clock = ManualClock()
        let other = Task { try await clock.sleep(until: ManualClock.Instant(offset: .seconds(5))) }
        #expect(await clock.sleepers(atLeast: 1))
        await withKnownIssue {
            let armed = await clock.sleeper(until: ManualClock.Instant(offset: .seconds(60)), within: .milliseconds(50))
            #expect(!armed)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("asleep until: [5.0 seconds]") }
        }
        other.cancel()
        await #expect(throws: CancellationError.self) { try await other.value }
    }
}

private actor WokenOrder {
    var order: [Int] = []
    func append(_ value: Int) { self.order.append(value) }
}
