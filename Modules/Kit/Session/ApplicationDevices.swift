public import CastChannels
import CastCommon
public import CastDiscovery
import NIOConcurrencyHelpers

/// The devices that can run the app: what discovery finds, narrowed to the
/// devices that can run ``CastOptions/receiverApplicationID`` — the SDK's
/// discovery criteria for the app id.
///
/// mDNS does not say which apps a device runs, so each device found is
/// asked once (GET_APP_AVAILABILITY, a few at a time) and the answer is
/// remembered while the device stays found. Listed are the devices that can
/// run the app and those that could not be asked; a device not asked yet,
/// or that answered that it cannot, is not. Everything that counts devices
/// for the user — the Cast button, the introduction prompt, the device
/// chooser — reads this one list, so they agree.
///
/// Nothing is asked until the list is first read or followed: an app that
/// never shows devices opens no connection to them.
///
/// ```swift
/// for await devices in context.applicationDevices.updates() { show(devices) }
/// ```
public final class ApplicationDevices: Sendable {
    private struct State: Sendable {
        var started = false
        var found: [CastDevice] = []
        var answers: [String: AppAvailability] = [:]
        var asking: Set<String> = []
        var published: [CastDevice] = []
    }

    private let discoveryManager: DiscoveryManager
    private let sessionManager: SessionManager
    private let applicationID: String
    private let maximumConcurrentChecks: Int
    private let state = NIOLockedValueBox(State())
    private let broadcaster = EventBroadcaster<[CastDevice]>(
        initial: [], replaysLatest: true, buffering: .bufferingNewest(16))
    private let following = NIOLockedValueBox<Task<Void, Never>?>(nil)

    init(
        discoveryManager: DiscoveryManager, sessionManager: SessionManager, applicationID: String,
        maximumConcurrentChecks: Int
    ) {
        self.discoveryManager = discoveryManager
        self.sessionManager = sessionManager
        self.applicationID = applicationID
        self.maximumConcurrentChecks = max(1, maximumConcurrentChecks)
    }

    deinit {
        self.following.withLockedValue { $0?.cancel() }
        self.broadcaster.finish()
    }

    /// The devices that can run the app (or could not be asked), in the order discovery found them.
    public var devices: [CastDevice] {
        self.startIfNeeded()
        return self.state.withLockedValue { Self.listed($0) }
    }

    /// What `device` answered, or `nil` while it has not been asked or is
    /// being asked.
    public func availability(of device: CastDevice) -> AppAvailability? {
        self.startIfNeeded()
        return self.state.withLockedValue { $0.answers[device.id] }
    }

    /// ``devices`` now, then each change; each call gives a new, independent stream.
    public func updates() -> AsyncStream<[CastDevice]> {
        self.startIfNeeded()
        // Subscribing under the state's lock, which every publication holds,
        // makes a listener's first list the current one.
        return self.state.withLockedValue { _ in self.broadcaster.subscribe() }
    }

    private static func listed(_ state: State) -> [CastDevice] {
        state.found.filter { device in
            guard let answer = state.answers[device.id] else { return false }
            return answer != .unavailable
        }
    }

    /// Follows discovery from the first use on.
    private func startIfNeeded() {
        let start = self.state.withLockedValue { state in
            defer { state.started = true }
            if !state.started { state.found = self.discoveryManager.devices }
            return !state.started
        }
        guard start else { return }
        let events = self.discoveryManager.events()
        let task = Task { [weak self] in
            self?.refresh()
            for await _ in events {
                guard let self else { return }
                self.state.withLockedValue { $0.found = self.discoveryManager.devices }
                self.refresh()
            }
        }
        self.following.withLockedValue { $0 = task }
    }

    /// Forgets the answers of devices no longer found, asks the devices not
    /// yet asked (a few at a time), and publishes the list.
    private func refresh() {
        let toAsk: [CastDevice] = self.state.withLockedValue { state in
            let found = Set(state.found.map(\.id))
            state.answers = state.answers.filter { found.contains($0.key) }
            let slots = self.maximumConcurrentChecks - state.asking.count
            guard slots > 0 else { return [] }
            let waiting = state.found.filter { state.answers[$0.id] == nil && !state.asking.contains($0.id) }
            let chosen = Array(waiting.prefix(slots))
            state.asking.formUnion(chosen.map(\.id))
            return chosen
        }
        for device in toAsk {
            Task { [weak self, sessionManager = self.sessionManager, applicationID = self.applicationID] in
                let answer = await sessionManager.availability(ofApplication: applicationID, on: device)
                self?.state.withLockedValue { state in
                    state.asking.remove(device.id)
                    if state.found.contains(where: { $0.id == device.id }) { state.answers[device.id] = answer }
                }
                self?.refresh()
            }
        }
        self.publish()
    }

    private func publish() {
        // Yielding under the state's lock keeps every listener's order the order of the changes.
        self.state.withLockedValue { state in
            let listed = Self.listed(state)
            guard listed != state.published else { return }
            state.published = listed
            self.broadcaster.yield(listed)
        }
    }
}
