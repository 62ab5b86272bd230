import NIOConcurrencyHelpers

/// Holds the visible device list and fans its changes out to subscribers.
///
/// A new subscriber first gets ``DiscoveryEvent/found(_:)`` for every device
/// already listed, so a stream alone is enough to mirror the list. Streams
/// end when the broadcaster goes, with its ``DiscoveryManager``.
final class DeviceListBroadcaster: Sendable {
    private struct State {
        /// The list by its publisher's keys; sorted when read, not at each change.
        var listed: [String: CastDevice] = [:]
        /// ``listed`` sorted, until it changes.
        var sorted: [CastDevice]? = []
        var devices: [CastDevice] {
            mutating get {
                if let sorted { return sorted }
                let sorted = self.listed.values.sorted(by: DiscoveryRuntime.listOrder)
                self.sorted = sorted
                return sorted
            }
        }
        var continuations: [UInt64: AsyncStream<DiscoveryEvent>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    deinit {
        for continuation in self.state.withLockedValue({ $0.continuations.values }) {
            continuation.finish()
        }
    }

    /// The listed devices, sorted by friendly name.
    var devices: [CastDevice] {
        self.state.withLockedValue { $0.devices }
    }

    /// A stream of the current devices as `found`, then every change.
    func subscribe() -> AsyncStream<DiscoveryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
        let id = self.state.withLockedValue { state in
            for device in state.devices { continuation.yield(.found(device)) }
            defer { state.nextID += 1 }
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Replaces the list with `devices` and sends `events` to every subscriber.
    func publish(_ events: [DiscoveryEvent], devices: [String: CastDevice]) {
        guard !events.isEmpty else { return }
        self.state.withLockedValue { state in
            state.listed = devices
            state.sorted = nil
            // Yielding under the lock keeps every subscriber's order equal to the list's history.
            for continuation in state.continuations.values {
                for event in events { continuation.yield(event) }
            }
        }
    }
}
