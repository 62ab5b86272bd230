import CastCapture
import CastChannels
import CastCommon
import CastDiscovery
import CastLogging
import CastRemoteDisplay
import CastTransport

/// One device's running stream: a connection to it, the audio mirroring
/// app's audio-only Cast Streaming session (``AudioCastSession``, with its
/// fallback to screen mirroring) and a recording of the sink's monitor
/// feeding it.
final class SpeakerStream: Sendable {
    let connection: CastConnection
    let receiver: ReceiverChannel
    let audio: AudioCastSession
    let capture: DesktopAudioCapture

    private init(
        connection: CastConnection, receiver: ReceiverChannel, audio: AudioCastSession, capture: DesktopAudioCapture
    ) {
        self.connection = connection
        self.receiver = receiver
        self.audio = audio
        self.capture = capture
    }

    /// Connects to `device`, launches the app and records `monitor` into its session.
    static func start(
        to device: CastDevice, recording monitor: String, configuration: CastSpeakersConfiguration,
        logger: CastLogger
    ) async throws(SpeakersError) -> SpeakerStream {
        let connection = try await Self.connect(to: device, configuration: configuration, logger: logger)
        let receiver = ReceiverChannel()
        do {
            try await connection.openVirtualConnection(to: CastEndpointID.receiverPlatform)
            receiver.attach(to: connection, destinationID: CastEndpointID.receiverPlatform, logger: logger)
            let capture = try DesktopAudioCapture(
                configuration: DesktopAudioConfiguration(server: configuration.soundServer, device: monitor))
            let audio = try await AudioCastSession.start(
                on: receiver, audio: RemoteDisplayConfiguration.Audio(bitrate: configuration.bitrate),
                targetDelay: configuration.targetDelay, logger: logger)
            do {
                try capture.start(streamingTo: audio.session)
            } catch {
                await audio.end()
                throw error
            }
            return SpeakerStream(connection: connection, receiver: receiver, audio: audio, capture: capture)
        } catch {
            receiver.detach()
            await connection.close()
            throw SpeakersError(.streamFailed, "\(device.friendlyName): \(error)")
        }
    }

    /// A connected socket to `device`, its IPv4 addresses first.
    private static func connect(
        to device: CastDevice, configuration: CastSpeakersConfiguration, logger: CastLogger
    ) async throws(SpeakersError) -> CastConnection {
        let addresses = device.addresses.filter(\.isV4) + device.addresses.filter { !$0.isV4 }
        var failure = "it has no known address"
        for address in addresses {
            let connection = CastConnection(
                host: address.description, port: device.port, configuration: configuration.connection, logger: logger)
            do {
                try await connection.connect()
                return connection
            } catch {
                failure = "\(error)"
                await connection.close()
            }
        }
        throw SpeakersError(.streamFailed, "cannot connect to \(device.friendlyName): \(failure)")
    }

    /// Why the stream stopped by itself (the session ended, the connection
    /// dropped, the recording failed); `nil` while it runs.
    var endReason: String? {
        if case .ended(let reason) = self.audio.session.state { return "the session ended (\(reason))" }
        if self.audio.session.state == .interrupted { return "the connection to the device was lost" }
        if self.capture.hasEnded { return "the recording of the sink ended" }
        return nil
    }

    /// Stops recording, ends the session (stopping the app) and closes the connection.
    func stop() async {
        self.capture.stop()
        _ = await self.capture.finished()
        await self.audio.end(stoppingApplication: true)
        self.receiver.detach()
        await self.connection.close()
    }
}
