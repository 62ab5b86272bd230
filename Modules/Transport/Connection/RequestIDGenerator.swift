import NIOConcurrencyHelpers

/// Request ids for one connection (Docs/spec/castv2-control.md §5): positive,
/// increasing from 1, never 0 (the id of unsolicited broadcasts). After
/// `Int32.max` it starts again at 1, so ids always fit the 32-bit integers
/// receivers parse them into; by then no request from the start is pending.
final class RequestIDGenerator: Sendable {
    private let last = NIOLockedValueBox<Int32>(0)

    /// The next id.
    func next() -> Int {
        self.last.withLockedValue { last in
            last = last == Int32.max ? 1 : last + 1
            return Int(last)
        }
    }
}
