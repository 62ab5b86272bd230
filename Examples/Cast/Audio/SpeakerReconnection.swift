import CastKit
import CastRemoteDisplay

/// `cast audio` on a speaker that drops off the network: when the control
/// connection is lost, connect again with the SDK's back-off
/// (``ReconnectPolicy/retry(on:immediately:retryingWhen:attempt:)``), open the app's
/// transport and attach the audio channel and the receiver channel that
/// launched the app to the new connection. The Cast Streaming session
/// resumes with the same keys and the same app session: nothing is launched
/// again. The connections made here are the caller's to close.
struct SpeakerReconnection {
    let options: DeviceOptions
    let audio: AudioCastSession
    /// The receiver channel that launched the app (the one that stops it at the end).
    let launcher: ReceiverChannel
    /// The app's transport, as it was launched.
    let transportID: String
    /// At once, then 1 s growing to 5 s: about half a minute in all.
    var policy = ReconnectPolicy(
        initialDelay: .seconds(1), multiplier: 1.5, maximumDelay: .seconds(5), jitter: 0.2, maximumAttempts: 9)
    var clock: any Clock<Duration> = ContinuousClock()

    /// Reconnects; the new link.
    func reconnect() async throws -> ReceiverLink {
        Output.progress("the connection to the device was lost; reconnecting")
        do {
            let link = try await self.policy.retry(on: self.clock, immediately: true) { _ in
                let link = try await ReceiverLink.connect(self.options)
                do {
                    try await link.connection.openVirtualConnection(to: self.transportID)
                } catch {
                    await link.close()
                    throw error
                }
                return link
            }
            self.launcher.attach(to: link.connection, destinationID: ReceiverLink.platformID, logger: link.logger)
            self.audio.channel.attach(to: link.connection, destinationID: self.transportID, logger: link.logger)
            Output.progress("reconnected; the same stream goes on")
            return link
        } catch {
            throw CommandFailure(
                .connectionFailed,
                "the device did not come back: \((error as? CastTransportError)?.summary ?? "\(error)")")
        }
    }
}
