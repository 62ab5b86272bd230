import CastChannels
import CastEmulator
import CastLogging
@_spi(Receiver) import CastTransport

let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// A started emulator with one sender joined to it in memory, whose
/// receiver channel is attached to `receiver-0`.
struct ChannelFixture {
    let emulator: CastEmulator
    let connection: CastConnection
    let receiver: ReceiverChannel

    /// Runs `body` with a started emulator and a connected sender; tears both down whatever happens.
    static func with(
        _ configuration: CastEmulatorConfiguration = CastEmulatorConfiguration(),
        connection connectionConfiguration: CastConnectionConfiguration = CastConnectionConfiguration(
            deviceAuthentication: .off),
        receiver: ReceiverChannel = ReceiverChannel(),
        _ body: (ChannelFixture) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(configuration: configuration, logger: quietLogger)
        try await emulator.start()
        let connection = Self.connection(to: emulator, connectionConfiguration)
        let fixture = ChannelFixture(emulator: emulator, connection: connection, receiver: receiver)
        let result: Result<Void, any Error>
        do {
            try await connection.connect()
            try await connection.openVirtualConnection(to: "receiver-0")
            receiver.attach(to: connection, destinationID: "receiver-0", logger: quietLogger)
            try await body(fixture)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        receiver.detach()
        await connection.close()
        await emulator.stop()
        try result.get()
    }

    /// A second sender on the same emulator, with its own receiver channel attached.
    func secondSender() async throws -> (CastConnection, ReceiverChannel) {
        let connection = Self.connection(to: self.emulator)
        try await connection.connect()
        try await connection.openVirtualConnection(to: "receiver-0")
        let receiver = ReceiverChannel()
        receiver.attach(to: connection, destinationID: "receiver-0", logger: quietLogger)
        return (connection, receiver)
    }

    /// A sender joined to `emulator` in memory: these tests are about what runs above the socket.
    private static func connection(
        to emulator: CastEmulator,
        _ configuration: CastConnectionConfiguration = CastConnectionConfiguration(deviceAuthentication: .off)
    ) -> CastConnection {
        emulator.inMemoryConnection(configuration: configuration, logger: quietLogger)
    }
}
