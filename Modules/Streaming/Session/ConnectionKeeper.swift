import CastChannels
import CastCommon
import CastTransport
import NIOConcurrencyHelpers

/// Keeps an audio session's control connection: when the session is
/// interrupted (its connection dropped), connects to the device again with
/// the policy's back-off, opens the app's transport and attaches the
/// session's channel there (the platform channel is attached by the link)
/// and the group channel to the platform; the session resumes. Closes the
/// links it made when closed.
final class ConnectionKeeper: Sendable {
    private struct State {
        var current: CastDeviceLink
        var made: [CastDeviceLink] = []
        var watcher: Task<Void, Never>?
        var isClosed = false
    }

    private let state: NIOLockedValueBox<State>
    private let policy: ReconnectPolicy
    private let clock: any Clock<Duration>
    let events = EventBroadcaster<AudioCastSessionEvent>(initial: nil, replaysLatest: false)

    init(link: CastDeviceLink, policy: ReconnectPolicy, clock: any Clock<Duration>) {
        self.state = NIOLockedValueBox(State(current: link))
        self.policy = policy
        self.clock = clock
    }

    /// The link the session's control runs on now.
    var currentLink: CastDeviceLink { self.state.withLockedValue { $0.current } }

    /// Reconnects whenever `session` is interrupted, until it ends or this closes.
    func watch(_ session: RemoteDisplaySession, on channel: RemoteDisplayChannel, group: MultizoneChannel) {
        let states = session.stateUpdates()
        let watcher = Task { [weak self] in
            for await state in states {
                switch state {
                case .interrupted: await self?.reconnect(session, on: channel, group: group)
                case .ended: return
                case .active: continue
                }
            }
        }
        self.state.withLockedValue { $0.watcher = watcher }
    }

    private func reconnect(
        _ session: RemoteDisplaySession, on channel: RemoteDisplayChannel, group: MultizoneChannel
    ) async {
        self.events.yield(.reconnecting)
        let transportID = session.applicationTransportID
        let lost = self.currentLink
        do {
            let link = try await self.policy.retry(on: self.clock, immediately: true) { _ in
                let link = try await lost.reconnect()
                do {
                    try await link.connection.openVirtualConnection(to: transportID)
                } catch {
                    await link.close()
                    throw error
                }
                return link
            }
            let kept = self.state.withLockedValue { state -> Bool in
                guard !state.isClosed else { return false }
                state.current = link
                state.made.append(link)
                return true
            }
            guard kept else { return await link.close() }
            channel.attach(to: link.connection, destinationID: transportID, logger: link.logger)
            group.attach(to: link.connection, destinationID: CastEndpointID.receiverPlatform, logger: link.logger)
            // A group's members may have changed while the link was down: asked again, if they were asked.
            if !group.devices.isEmpty { Task { try? await group.requestStatus() } }
            self.events.yield(.reconnected(link))
        } catch {
            // Closed while it tried: the caller ended the session, nothing failed.
            guard !Task.isCancelled else { return }
            let failure =
                error as? CastTransportError
                ?? CastTransportError(.connectionFailed, "\(lost.device.friendlyName) did not come back: \(error)")
            // Ended first: whoever hears the failure finds the session over.
            session.end(.connectionLost)
            self.events.yield(.reconnectionFailed(failure))
        }
    }

    /// Stops watching and closes the links made after the first (the first is the caller's).
    func close() async {
        let (watcher, made) = self.state.withLockedValue { state in
            state.isClosed = true
            return (state.watcher, state.made)
        }
        watcher?.cancel()
        for link in made { await link.close() }
        self.events.finish()
    }
}
