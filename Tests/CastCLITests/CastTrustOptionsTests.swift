import CastEmulator
import CastKit
import CastSpeakers
import CastTestSupport
import Testing

@testable import cast

/// The commands that follow every device (`cast ui`, `cast tray`,
/// `cast speakers`) take the same device-trust options as the commands
/// that talk to one, and refuse the emulator — whose chain is not
/// Google's — with `--require-authentication`.
@Suite(.timeLimit(.minutes(1))) struct CastTrustOptionsTests {
    static let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))

    @Test func uiAndTrayRefuseTheEmulatorWithRequireAuthentication() async throws {
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(), logger: Self.quiet)
        try await emulator.start()
        let ui = try #require(try CastCommand.parseAsRoot(["ui", "--require-authentication"]) as? UICommand)
        let tray = try #require(try CastCommand.parseAsRoot(["tray", "--require-authentication"]) as? TrayCommand)
        for var options in [try ui.options(), try tray.options()] {
            #expect(options.deviceAuthentication.requirement == .required)
            options.logger = Self.quiet
            options.sessionStore = nil
            options.connectionFactory = [emulator].inMemoryConnectionFactory
            let manager = SessionManager(options: options)
            let refused = await #expect(throws: CastSessionError.self) {
                _ = try await manager.startSession(on: emulator.loopbackDevice)
            }
            #expect(
                "\(refused.map { "\($0)" } ?? "")".contains("untrustedCertificateChain"),
                "\(String(describing: refused))")
        }
        // Without it, the emulator is used (with a warning).
        var options = try #require(try CastCommand.parseAsRoot(["ui"]) as? UICommand).options()
        #expect(options.deviceAuthentication.requirement == .optional)
        options.logger = Self.quiet
        options.sessionStore = nil
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        let manager = SessionManager(options: options)
        _ = try await manager.startSession(on: emulator.loopbackDevice)
        await manager.endSession()
        await emulator.stop()
    }

    @Test func speakersRefuseTheEmulatorWithRequireAuthentication() async throws {
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(), logger: Self.quiet)
        try await emulator.start()
        let command = try #require(
            try CastCommand.parseAsRoot(["speakers", "--require-authentication", "--no-mdns"]) as? SpeakersCommand)
        let configuration = try command.configuration(file: CastSpeakersFile())
        #expect(
            configuration.connection.deviceAuthentication.requirement == DeviceAuthenticationPolicy.Requirement.required
        )
        let connection = CastConnection(
            host: "127.0.0.1", port: emulator.port, configuration: configuration.connection, logger: Self.quiet)
        let refused = await #expect(throws: CastTransportError.self) { try await connection.connect() }
        #expect(refused?.code == .untrustedCertificateChain)
        await connection.close()
        await emulator.stop()
    }
}
