import CastChannels
import CastTestSupport
import Testing

@Suite(.timeLimit(.minutes(3))) struct RequestTrackerTests {
    @Test func aReplyResolvesTheRequestWithItsID() async throws {
        let tracker = RequestTracker<String>()
        let reply = try await tracker.perform(requestID: 7, timeout: .seconds(10)) { () throws(CastChannelError) in
            // The reply arrives before the caller starts waiting: it must not be lost.
            #expect(tracker.resolve(requestID: 7, with: .success("seven")))
        }
        #expect(reply == "seven")
        #expect(tracker.pendingCount == 0)
        #expect(!tracker.resolve(requestID: 7, with: .success("late")))
    }

    /// At virtual time: still waiting a nanosecond before the timeout, timed out at it.
    @Test func aRequestWithoutAReplyTimesOutAtItsTimeout() async {
        let clock = ManualClock()
        let tracker = RequestTracker<String>(clock: clock)
        let waiter = Task {
            await caughtError(CastChannelError.self) {
                _ = try await tracker.perform(requestID: 1, timeout: .seconds(10)) { () throws(CastChannelError) in }
            }
        }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(10) - .nanoseconds(1))
        #expect(tracker.pendingCount == 1)
        clock.advance(by: .nanoseconds(1))
        let error = await waiter.value
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("within 10.0 seconds") == true, "\(String(describing: error))")
        #expect(tracker.pendingCount == 0)
    }

    /// A reply that comes before the timeout wins, and the timer stops sleeping.
    @Test func aReplyBeforeTheTimeoutCancelsTheTimer() async throws {
        let clock = ManualClock()
        let tracker = RequestTracker<String>(clock: clock)
        let waiter = Task {
            try await tracker.perform(requestID: 4, timeout: .seconds(10)) { () throws(CastChannelError) in }
        }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(9))
        #expect(tracker.resolve(requestID: 4, with: .success("four")))
        #expect(try await waiter.value == "four")
        clock.advance(by: .seconds(5))
        #expect(tracker.pendingCount == 0)
    }

    @Test func cancellingTheWaitingTaskCancelsTheRequest() async {
        let tracker = RequestTracker<String>()
        let task = Task {
            await caughtError(CastChannelError.self) {
                _ = try await tracker.perform(requestID: 2, timeout: .seconds(30)) { () throws(CastChannelError) in }
            }
        }
        while tracker.pendingCount == 0 { await Task.yield() }
        task.cancel()
        #expect(await task.value?.code == .cancelled)
        #expect(tracker.pendingCount == 0)
    }

    @Test func failAllEndsEveryPendingRequestAtOnce() async {
        let tracker = RequestTracker<String>()
        let waiters = (1...3).map { id in
            Task {
                await caughtError(CastChannelError.self) {
                    _ = try await tracker.perform(requestID: id, timeout: .seconds(30)) { () throws(CastChannelError) in
                    }
                }
            }
        }
        while tracker.pendingCount < 3 { await Task.yield() }
        tracker.failAll(CastChannelError(.disconnected, "gone"))
        for waiter in waiters {
            #expect(await waiter.value?.code == .disconnected)
        }
    }

    @Test func aSendThatFailsLeavesNothingPending() async {
        let tracker = RequestTracker<String>()
        let error = await caughtError(CastChannelError.self) {
            _ = try await tracker.perform(requestID: 3, timeout: .seconds(30)) { () throws(CastChannelError) in
                throw CastChannelError(.notConnected, "no socket")
            }
        }
        #expect(error?.code == .notConnected)
        #expect(tracker.pendingCount == 0)
    }
}
