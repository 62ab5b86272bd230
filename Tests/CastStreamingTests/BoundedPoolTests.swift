import NIOConcurrencyHelpers
import Testing

@_spi(Receiver) @testable import CastStreaming

/// The pool behind encoded frames and pixel buffers: bounded, reusing what
/// is recycled, and, prefilled, making nothing after it is created.
@Suite(.timeLimit(.minutes(3))) struct BoundedPoolTests {
    final class Object: Sendable {}

    @Test(arguments: [false, true])
    func thePoolIsBoundedAndReusesWhatIsRecycled(prefilled: Bool) throws {
        let made = NIOLockedValueBox(0)
        let pool = BoundedPool<Object>(capacity: 4, prefilled: prefilled) {
            made.withLockedValue { $0 += 1 }
            return Object()
        }
        #expect(made.withLockedValue { $0 } == (prefilled ? 4 : 0))
        let taken = (0..<4).compactMap { _ in pool.take() }
        #expect(taken.count == 4)
        #expect(pool.take() == nil)
        #expect(pool.outstanding == 4)
        // Every object is made once, at creation when prefilled, on demand otherwise.
        #expect(made.withLockedValue { $0 } == 4)
        pool.recycle(taken[2])
        let again = try #require(pool.take())
        #expect(again === taken[2])
        #expect(made.withLockedValue { $0 } == 4)
    }
}
