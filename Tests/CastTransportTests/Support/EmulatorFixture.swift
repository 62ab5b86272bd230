import CastEmulator
import CastLogging
import CastTestSupport
import Testing

@_spi(Receiver) @testable import CastTransport

/// A started emulator on 127.0.0.1 and helpers to connect to it and watch it.
struct EmulatorFixture {
    static let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

    let emulator: CastEmulator

    init(configuration: CastEmulatorConfiguration = CastEmulatorConfiguration()) async throws {
        self.emulator = try CastEmulator(configuration: configuration, logger: Self.quietLogger)
        try await self.emulator.start()
    }

    /// A sender for the emulator, joined in memory unless `overNetwork`
    /// (TCP and TLS on 127.0.0.1: for what the socket itself does).
    func connection(
        _ configuration: CastConnectionConfiguration = CastConnectionConfiguration(deviceAuthentication: .off),
        overNetwork: Bool = false
    ) -> CastConnection {
        guard overNetwork else {
            return self.emulator.inMemoryConnection(configuration: configuration, logger: Self.quietLogger)
        }
        return CastConnection(
            host: "127.0.0.1", port: self.emulator.port, configuration: configuration, logger: Self.quietLogger)
    }

    /// Runs `body` with a started emulator, stopping it afterwards whatever happens.
    static func with(
        _ configuration: CastEmulatorConfiguration = CastEmulatorConfiguration(),
        _ body: (EmulatorFixture) async throws -> Void
    ) async throws {
        let fixture = try await EmulatorFixture(configuration: configuration)
        do {
            try await body(fixture)
        } catch {
            await fixture.emulator.stop()
            throw error
        }
        await fixture.emulator.stop()
    }
}

/// The reason a connection ended, once it has (waiting at most `timeout`).
func disconnectReason(
    of connection: CastConnection,
    within timeout: Duration = .seconds(10)
) async -> CastTransportError.Code? {
    let final = await first(connection.stateUpdates(), within: timeout) {
        if case .disconnected = $0 { return true }
        return false
    }
    if case .disconnected(let reason) = final { return reason.code }
    return nil
}

/// The code of the error `body` throws, or `nil` if it does not throw.
func transportErrorCode(_ body: () async throws -> Void) async -> CastTransportError.Code? {
    do {
        try await body()
        return nil
    } catch let error as CastTransportError {
        return error.code
    } catch {
        Issue.record("expected a CastTransportError, got \(error)")
        return nil
    }
}
