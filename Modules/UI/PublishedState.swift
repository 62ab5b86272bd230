import CastCommon
import CastTransport
import NIOConcurrencyHelpers

/// A view-model's state: the current value, and its changes fanned out to
/// every listener, each listener starting with the current value. Updates
/// are published in order, and only when they change the value. A listener
/// that falls behind keeps the newest few states, so a stalled view never
/// grows memory.
final class PublishedState<State: Sendable & Equatable>: Sendable {
    private let value: NIOLockedValueBox<State>
    private let broadcaster: EventBroadcaster<State>

    init(_ initial: State) {
        self.value = NIOLockedValueBox(initial)
        self.broadcaster = EventBroadcaster(initial: initial, replaysLatest: true, buffering: .bufferingNewest(16))
    }

    deinit {
        self.broadcaster.finish()
    }

    var current: State { self.value.withLockedValue { $0 } }

    func updates() -> AsyncStream<State> {
        // Subscribing under the value's lock keeps the first state a listener sees the current one.
        self.value.withLockedValue { _ in self.broadcaster.subscribe() }
    }

    /// Changes the state and publishes it if it changed; returns the new state.
    @discardableResult
    func update(_ change: (inout State) -> Void) -> State {
        self.value.withLockedValue { state in
            let before = state
            change(&state)
            // Yielding under the lock keeps every listener's order the order of the updates.
            if state != before { self.broadcaster.yield(state) }
            return state
        }
    }
}
