import CastChannels
import CastDiscovery

/// A device's own sink while no stream runs: a control connection to the
/// device (``CastDeviceLink``, no app launched) keeps the sink's volume and
/// mute in step with the device's both ways, as while it streams — a change
/// made with the device's buttons or a phone reaches the sink, and one made
/// in the desktop's sound settings reaches the device — so nothing jumps
/// when the next stream starts. The connection is made again after the
/// configuration's back-off when it fails or drops; the stream's own
/// connection takes over while it runs. A group's sink has none: its volume
/// is the group's, applied in the sound.
extension SpeakerOutput {
    /// Starts keeping the control connection, unless one is kept, a stream
    /// runs, the sink is a group's or the output is ending.
    func watchWhileIdle() {
        guard !self.isGroup, !self.isFinishing, self.idle == nil, !self.isStreaming,
            let device = self.members.values.first
        else { return }
        self.idle = (nil, Task { await self.keepIdleLink(to: device) })
    }

    /// Stops keeping the control connection, and closes it.
    func stopWatchingIdle() async {
        guard let idle = self.idle else { return }
        self.idle = nil
        idle.task.cancel()
        guard let link = idle.link else { return }
        if self.volumeReceiver === link.receiver {
            self.volumeWatcher?.cancel()
            self.volumeWatcher = nil
            self.volumeReceiver = nil
        }
        link.receiver.detach()
        await link.close()
    }

    /// Connects, follows the device's volume until the connection drops,
    /// and again after the back-off, until cancelled.
    private func keepIdleLink(to device: CastDevice) async {
        let configuration = self.configuration
        var attempt = 0
        while !Task.isCancelled {
            do {
                let link = try await CastDeviceLink.connect(
                    to: device, configuration: configuration.connection, factory: configuration.connectionFactory,
                    logger: self.logger)
                // A device tells its volume only when asked, or when it changes.
                do {
                    _ = try await link.receiver.requestStatus()
                } catch {
                    await link.close()
                    throw error
                }
                guard !Task.isCancelled, self.idle != nil, !self.isStreaming else {
                    await link.close()
                    return
                }
                self.idle?.link = link
                attempt = 0
                await self.followVolume(of: link.receiver)
                for await state in link.connection.stateUpdates() {
                    if case .disconnected = state { break }
                }
                if self.idle?.link?.connection === link.connection { self.idle?.link = nil }
            } catch {
                self.log.debug("no control connection to \(device.friendlyName) while idle: \(error)")
            }
            attempt += 1
            guard let delay = configuration.retryPolicy.delay(beforeAttempt: attempt) else { return }
            do {
                try await configuration.clock.sleep(for: delay)
            } catch {
                return
            }
        }
    }
}
