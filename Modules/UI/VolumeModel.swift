public import CastChannels
public import CastKit
import NIOConcurrencyHelpers

/// The current session's device volume, for a slider and for volume keys:
/// the SDK's device-volume controller and its hardware-button handling.
///
/// Key presses step by the receiver's `stepInterval`. Quick presses add up:
/// each steps from the level last asked for, not from the last status, so
/// three presses move three steps even before the receiver answers. Levels
/// reach the receiver in the order they were asked for, so the last press
/// or slider move is the level the device ends at.
///
/// ```swift
/// let volume = VolumeModel(sessionManager: context.sessionManager)
/// try await volume.stepUp()          // the volume-up key
/// for await state in volume.updates() { slider.value = state.level }
/// ```
public final class VolumeModel: Sendable {
    private struct Target {
        var session: CastSession?
        var requestedLevel: Double?
        /// The last SET_VOLUME asked for; the next one is sent after it.
        var lastRequest: Task<Result<Void, CastChannelError>, Never>?
    }

    private let state = PublishedState(DeviceVolume.unavailable)
    private let target = NIOLockedValueBox(Target())
    private let following = FollowingTask()

    /// Creates a model following `sessionManager`'s session.
    public init(sessionManager: SessionManager) {
        let sessions = sessionManager.sessionUpdates()
        let (state, target) = (self.state, self.target)
        self.following.start {
            var followed: (session: CastSession, task: Task<Void, Never>)?
            for await session in sessions {
                target.withLockedValue { $0.session = session }
                if session !== followed?.session {
                    followed?.task.cancel()
                    followed = session.map { session in
                        (session, Task { await Self.follow(session, into: state, target: target) })
                    }
                }
                Self.publish(session, into: state, target: target)
            }
            followed?.task.cancel()
        }
    }

    /// Stops following the session.
    public func close() {
        self.following.cancel()
    }

    /// The volume now.
    public var volume: DeviceVolume { self.state.current }

    /// The volume now, then each change; each call gives a new, independent stream.
    public func updates() -> AsyncStream<DeviceVolume> {
        self.state.updates()
    }

    /// One volume-up key press.
    public func stepUp() async throws(CastChannelError) {
        try await self.step(1)
    }

    /// One volume-down key press.
    public func stepDown() async throws(CastChannelError) {
        try await self.step(-1)
    }

    /// Sets the level, 0–1.
    ///
    /// - Throws: `CastChannelError.Code.invalidRequest` when the volume is
    ///   fixed, `CastChannelError.Code.notConnected` without a connected session,
    ///   or the receiver's refusal.
    public func setLevel(_ level: Double) async throws(CastChannelError) {
        let level = min(max(level, 0), 1)
        try await self.request { _, _ in level }
    }

    /// Mutes or unmutes the device.
    public func setMuted(_ muted: Bool) async throws(CastChannelError) {
        try await self.requireEnabled().receiver.setMuted(muted)
    }

    /// Mutes an unmuted device, unmutes a muted one.
    public func toggleMute() async throws(CastChannelError) {
        try await self.setMuted(!self.volume.isMuted)
    }

    private func step(_ steps: Int) async throws(CastChannelError) {
        try await self.request { volume, requested in volume.level(afterSteps: steps, from: requested) }
    }

    /// Asks for the level `level` gives from the volume now and the level
    /// last asked for, and sends it once every level asked for before it has
    /// been answered. Presses from concurrent tasks would otherwise race to
    /// the channel, and an earlier, lower step could be the last one applied.
    private func request(
        _ level: (DeviceVolume, _ requested: Double?) -> Double
    ) async throws(CastChannelError) {
        let session = try self.requireEnabled()
        let request = self.target.withLockedValue { target in
            // Read under the lock `publish` holds while it publishes, so the
            // volume and the pending level are one consistent pair.
            let level = level(self.volume, target.requestedLevel)
            target.requestedLevel = level
            let previous = target.lastRequest
            let request = Task { () -> Result<Void, CastChannelError> in
                _ = await previous?.value
                do throws(CastChannelError) {
                    try await session.receiver.setVolume(level)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            target.lastRequest = request
            return request
        }
        try await request.value.get()
    }

    private func requireEnabled() throws(CastChannelError) -> CastSession {
        guard let session = self.target.withLockedValue({ $0.session }), session.state == .connected else {
            throw CastChannelError(.notConnected, "no connected session")
        }
        guard !self.volume.isFixed else {
            throw CastChannelError(.invalidRequest, "the device's volume is fixed")
        }
        return session
    }

    /// Publishes the session's volume on every receiver status.
    private static func follow(
        _ session: CastSession, into state: PublishedState<DeviceVolume>, target: NIOLockedValueBox<Target>
    ) async {
        for await event in session.receiver.events() {
            switch event {
            case .statusChanged, .volumeChanged: Self.publish(session, into: state, target: target)
            case .launchStatusChanged: break
            }
        }
    }

    /// The volume of `session` as last reported. A report that reaches the
    /// level asked for ends the pending request, so later presses step from it.
    private static func publish(
        _ session: CastSession?, into state: PublishedState<DeviceVolume>, target: NIOLockedValueBox<Target>
    ) {
        guard let session, let reported = session.receiver.status?.volume, session.state != .ended else {
            target.withLockedValue { target in
                target.requestedLevel = nil
                state.update { $0 = .unavailable }
            }
            return
        }
        let volume = DeviceVolume(reported, isConnected: session.state == .connected)
        target.withLockedValue { target in
            if let requested = target.requestedLevel, abs(requested - volume.level) < 0.001 {
                target.requestedLevel = nil
            }
            state.update { $0 = volume }
        }
    }
}
