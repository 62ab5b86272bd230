import CastChannels
import CastLogging
public import CastRemoteDisplay
import CastTransport

/// A sender's Cast Streaming session with a receiver on 127.0.0.1: connect,
/// launch the mirroring app, OFFER/ANSWER, as `cast screen` does — or, for
/// sound alone, as `cast audio` does (``AudioCastSession``).
public final class MirroringConnection: Sendable {
    /// The session frames and sound are enqueued on.
    public let session: RemoteDisplaySession
    private let channel: RemoteDisplayChannel
    private let connection: CastConnection

    private static let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))

    /// Connects to the receiver at `port` and begins a session with `configuration`.
    public init(port: Int, configuration: RemoteDisplayConfiguration) async throws {
        let (connection, receiver) = try await Self.connect(port: port)
        let application = try await receiver.launch(appID: configuration.applicationID)
        guard let transportID = application.transportID else {
            throw BenchmarkSupportError(description: "the mirroring app has no transport")
        }
        try await connection.openVirtualConnection(to: transportID)
        guard let channel = RemoteDisplayChannel(logger: Self.quiet) else {
            throw BenchmarkSupportError(description: "libvpx or libopus does not work on this machine")
        }
        channel.attach(to: connection, destinationID: transportID, logger: Self.quiet)
        self.session = try await channel.beginSession(configuration: configuration)
        self.channel = channel
        self.connection = connection
    }

    /// Connects to the speaker at `port` and starts sending it sound alone
    /// (``AudioCastSession/start(on:audio:targetDelay:logger:)``).
    public init(audioOnlyPort port: Int, audio: RemoteDisplayConfiguration.Audio, targetDelay: Duration) async throws {
        let (connection, receiver) = try await Self.connect(port: port)
        let audioCast = try await AudioCastSession.start(
            on: receiver, audio: audio, targetDelay: targetDelay, logger: Self.quiet)
        self.session = audioCast.session
        self.channel = audioCast.channel
        self.connection = connection
    }

    /// A connection to `receiver-0` at `port`, with its receiver channel.
    private static func connect(port: Int) async throws -> (CastConnection, ReceiverChannel) {
        let connection = CastConnection(host: "127.0.0.1", port: port, logger: Self.quiet)
        try await connection.connect()
        try await connection.openVirtualConnection(to: "receiver-0")
        let receiver = ReceiverChannel()
        receiver.attach(to: connection, destinationID: "receiver-0", logger: Self.quiet)
        return (connection, receiver)
    }

    /// Stops the session and leaves; the receiver then prints its report.
    public func close() async {
        self.session.stop()
        await self.connection.close()
    }
}
