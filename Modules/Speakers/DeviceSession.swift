import CastChannels
import CastCommon
import CastDiscovery
import CastLogging
import CastStreaming
import CastTransport

/// One device's audio-only Cast Streaming session: a connection to it,
/// its receiver channel and the audio mirroring app's session
/// (``AudioCastSession``, with its fallback to screen mirroring). A sink's
/// recording feeds it (one device's sink, or a group's, feeding several).
final class DeviceSession: Sendable {
    let device: CastDevice
    let connection: CastConnection
    let receiver: ReceiverChannel
    let audio: AudioCastSession

    private init(device: CastDevice, connection: CastConnection, receiver: ReceiverChannel, audio: AudioCastSession) {
        self.device = device
        self.connection = connection
        self.receiver = receiver
        self.audio = audio
    }

    /// Connects to `device` (``CastDeviceLink``) and launches the app.
    static func start(
        to device: CastDevice, configuration: CastSpeakersConfiguration, logger: CastLogger
    ) async throws(SpeakersError) -> DeviceSession {
        let link: CastDeviceLink
        do {
            link = try await CastDeviceLink.connect(
                to: device, configuration: configuration.connection, factory: configuration.connectionFactory,
                logger: logger)
        } catch {
            // One sentence ("… connection refused"); NIO's chain of attempts only in the debug log.
            logger.makeLogger(subsystem: "Speakers").debug("connecting to \(device.friendlyName): \(error)")
            throw SpeakersError(.streamFailed, "cannot connect to \(device.friendlyName): \(Self.plain(error))")
        }
        do {
            let audio = try await AudioCastSession.start(
                on: link.receiver, audio: RemoteDisplayConfiguration.Audio(bitrate: configuration.bitrate),
                targetDelay: configuration.targetDelay, logger: logger)
            return DeviceSession(device: device, connection: link.connection, receiver: link.receiver, audio: audio)
        } catch {
            await link.close()
            logger.makeLogger(subsystem: "Speakers").debug("\(device.friendlyName): \(error)")
            throw SpeakersError(.streamFailed, "\(device.friendlyName): \(Self.plain(error))")
        }
    }

    /// `error` in one sentence: a transport error's summary, without its cause's technical chain.
    private static func plain(_ error: any Error) -> String {
        (error as? CastTransportError)?.summary ?? "\(error)"
    }

    /// Why the session stopped by itself (it ended, the connection
    /// dropped); `nil` while it runs.
    var endReason: String? {
        if case .ended(let reason) = self.audio.session.state { return "the session ended (\(reason))" }
        if self.audio.session.state == .interrupted { return "the connection to the device was lost" }
        return nil
    }

    /// Ends the session (stopping the app) and closes the connection.
    func stop() async {
        await self.audio.end(stoppingApplication: true)
        self.receiver.detach()
        await self.connection.close()
    }
}
