import CastKit
import CastRemoteDisplay
import Foundation

/// `cast audio` on a speaker that drops off the network: when the control
/// connection is lost, connect again (every second, for up to `patience`),
/// open the app's transport and attach the audio channel and the receiver
/// channel that launched the app to the new connection. The Cast Streaming
/// session resumes with the same keys and the same app session: nothing is
/// launched again. The connections made here are the caller's to close.
struct SpeakerReconnection {
    let options: DeviceOptions
    let audio: AudioCastSession
    /// The receiver channel that launched the app (the one that stops it at the end).
    let launcher: ReceiverChannel
    /// The app's transport, as it was launched.
    let transportID: String
    var patience: Duration = .seconds(30)

    /// Reconnects; the new link.
    func reconnect() async throws -> ReceiverLink {
        Output.progress("the connection to the device was lost; reconnecting")
        let deadline = ContinuousClock.now + self.patience
        var lastError: (any Error)?
        while ContinuousClock.now < deadline {
            do {
                let link = try await ReceiverLink.connect(self.options)
                do {
                    try await link.connection.openVirtualConnection(to: self.transportID)
                } catch {
                    await link.close()
                    throw error
                }
                self.launcher.attach(to: link.connection, destinationID: ReceiverLink.platformID, logger: link.logger)
                self.audio.channel.attach(to: link.connection, destinationID: self.transportID, logger: link.logger)
                Output.progress("reconnected; the same stream goes on")
                return link
            } catch {
                lastError = error
                try await Task.sleep(for: .seconds(1))
            }
        }
        throw CommandFailure(
            .connectionFailed,
            "the device did not come back within \(self.patience): \(lastError.map { "\($0)" } ?? "no answer")")
    }
}
