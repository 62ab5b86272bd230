import Synchronization

/// Bounds the messages written but not yet flushed to the socket: the
/// sender's outbound queue. A send takes a slot; the write's completion
/// (flushed or failed) gives it back.
final class SendBudget: Sendable {
    private let inFlight = Atomic<Int>(0)
    /// Most messages waiting at once.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot, or returns `false` when all are taken.
    func tryAcquire() -> Bool {
        var current = self.inFlight.load(ordering: .relaxed)
        while current < self.limit {
            let (exchanged, original) = self.inFlight.compareExchange(
                expected: current,
                desired: current + 1,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a slot back.
    func release() {
        self.inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }
}
