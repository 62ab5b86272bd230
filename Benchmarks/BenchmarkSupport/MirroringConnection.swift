import CastChannels
import CastLogging
public import CastRemoteDisplay
import CastTransport

/// A sender's mirroring session with a receiver on 127.0.0.1: connect,
/// launch the mirroring app, OFFER/ANSWER, as `cast screen` does.
public final class MirroringConnection: Sendable {
    /// The session frames are enqueued on.
    public let session: RemoteDisplaySession
    private let connection: CastConnection

    /// Connects to the receiver at `port` and begins a session with `configuration`.
    public init(port: Int, configuration: RemoteDisplayConfiguration) async throws {
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let connection = CastConnection(host: "127.0.0.1", port: port, logger: quiet)
        try await connection.connect()
        try await connection.openVirtualConnection(to: "receiver-0")
        let receiver = ReceiverChannel()
        receiver.attach(to: connection, destinationID: "receiver-0", logger: quiet)
        let application = try await receiver.launch(appID: configuration.applicationID)
        guard let transportID = application.transportID else {
            throw BenchmarkSupportError(description: "the mirroring app has no transport")
        }
        try await connection.openVirtualConnection(to: transportID)
        guard let channel = RemoteDisplayChannel(logger: quiet) else {
            throw BenchmarkSupportError(description: "libvpx or libopus does not work on this machine")
        }
        channel.attach(to: connection, destinationID: transportID, logger: quiet)
        self.session = try await channel.beginSession(configuration: configuration)
        self.connection = connection
    }

    /// Stops the session and leaves; the receiver then prints its report.
    public func close() async {
        self.session.stop()
        await self.connection.close()
    }
}
