import CastTransport
import NIOConcurrencyHelpers
import NIOCore

/// The state every socket of one emulator shares: the fault knobs, the live
/// sender channels, and the observation stream.
final class EmulatorHub: Sendable {
    private struct State {
        var faults = EmulatorFaults()
        var channels: [Int: any Channel] = [:]
        var nextConnectionID = 1
        var responders: [String: CastEmulator.Responder] = [:]
    }

    private let state = NIOLockedValueBox(State())
    /// What the emulator observes, fanned out to every listener.
    let events = EventBroadcaster<EmulatorEvent>(initial: nil)

    /// The current fault settings.
    var faults: EmulatorFaults {
        get { self.state.withLockedValue { $0.faults } }
        set { self.state.withLockedValue { $0.faults = newValue } }
    }

    /// The responder for `namespace`, if one is set.
    func responder(for namespace: String) -> CastEmulator.Responder? {
        self.state.withLockedValue { $0.responders[namespace] }
    }

    /// Sets (or with `nil` removes) the responder for `namespace`.
    func setResponder(_ responder: CastEmulator.Responder?, for namespace: String) {
        self.state.withLockedValue { $0.responders[namespace] = responder }
    }

    /// Registers a sender socket and returns its connection id.
    func register(_ channel: any Channel) -> Int {
        self.state.withLockedValue { state in
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.channels[id] = channel
            return id
        }
    }

    /// Forgets a sender socket.
    func unregister(_ connectionID: Int) {
        _ = self.state.withLockedValue { $0.channels.removeValue(forKey: connectionID) }
    }

    /// The live sender sockets.
    var channels: [(id: Int, channel: any Channel)] {
        self.state.withLockedValue { state in
            state.channels.sorted { $0.key < $1.key }.map { (id: $0.key, channel: $0.value) }
        }
    }
}
