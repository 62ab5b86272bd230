import NIOConcurrencyHelpers

/// How a capture's thread ended, told once to everyone who waits for it.
package final class CaptureCompletion: Sendable {
    private struct State {
        var ended = false
        var error: CaptureError?
        var waiters: [CheckedContinuation<CaptureError?, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the thread ended.
    package init() {}

    package var hasEnded: Bool { self.state.withLockedValue { $0.ended } }

    /// Records the end (the first call wins) and wakes the waiters.
    package func finish(_ error: CaptureError?) {
        let waiters = self.state.withLockedValue { state -> [CheckedContinuation<CaptureError?, Never>] in
            guard !state.ended else { return [] }
            state.ended = true
            state.error = error
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: error) }
    }

    /// Waits for the end: `nil` when stopped or the session ended, the error that stopped it otherwise.
    package func wait() async -> CaptureError? {
        await withCheckedContinuation { continuation in
            let ended = self.state.withLockedValue { state -> CaptureError?? in
                if state.ended { return .some(state.error) }
                state.waiters.append(continuation)
                return .none
            }
            if let error = ended { continuation.resume(returning: error) }
        }
    }
}
