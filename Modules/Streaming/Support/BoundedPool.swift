import NIOConcurrencyHelpers

/// A fixed-capacity pool of reusable storage objects.
///
/// `take()` hands out a free object, makes a new one while fewer than
/// `capacity` exist, and returns `nil` once `capacity` are out: the pool
/// never grows past its bound. `recycle(_:)` returns an object. Once warm,
/// neither call allocates (the free list's capacity is reserved up front);
/// a prefilled pool is warm from the start, however many objects are ever
/// out at once. Safe from any thread.
package final class BoundedPool<Storage: AnyObject & Sendable>: Sendable {
    private struct State {
        var free: [Storage]
        var outstanding = 0
    }

    /// The most objects that can be out at once.
    package let capacity: Int
    private let makeStorage: @Sendable () -> Storage
    private let state: NIOLockedValueBox<State>

    /// A pool of at most `capacity` objects from `makeStorage`; with
    /// `prefilled`, all of them are made now rather than as first needed.
    package init(capacity: Int, prefilled: Bool = false, makeStorage: @escaping @Sendable () -> Storage) {
        self.capacity = capacity
        self.makeStorage = makeStorage
        var free: [Storage] = []
        free.reserveCapacity(capacity)
        if prefilled {
            for _ in 0..<capacity { free.append(makeStorage()) }
        }
        self.state = NIOLockedValueBox(State(free: free))
    }

    /// How many objects are out now.
    package var outstanding: Int { self.state.withLockedValue { $0.outstanding } }

    package func take() -> Storage? {
        self.state.withLockedValue { state in
            if let storage = state.free.popLast() {
                state.outstanding += 1
                return storage
            }
            guard state.outstanding < self.capacity else { return nil }
            state.outstanding += 1
            return self.makeStorage()
        }
    }

    package func recycle(_ storage: Storage) {
        self.state.withLockedValue { state in
            state.outstanding -= 1
            state.free.append(storage)
        }
    }
}
