public import CastChannels
@_spi(Receiver) public import CastDiscovery
public import CastEmulator
public import CastLogging
@_spi(Receiver) import CastTransport

extension CastEmulator {
    /// The emulator as a device known by its address (127.0.0.1 and its
    /// port), as a sender that does not browse would have it.
    public var loopbackDevice: CastDevice {
        CastDevice(
            id: "emulator-\(self.port)", friendlyName: "Emulator", modelName: "", capabilities: [],
            status: .unknown(nil), addresses: [IPAddress("127.0.0.1")!], port: self.port, source: .knownHost)
    }

    /// A link to this (started) emulator in memory, device authentication off.
    public func inMemoryLink(logger: CastLogger) async throws -> CastDeviceLink {
        try await CastDeviceLink.connect(
            to: self.loopbackDevice, configuration: CastConnectionConfiguration(deviceAuthentication: .off),
            factory: [self].inMemoryConnectionFactory, logger: logger)
    }

    /// Runs `body` with an emulator configured so, started, and a link to it
    /// in memory; both are closed afterwards, whether `body` throws or not.
    public static func withLinked(
        _ configuration: CastEmulatorConfiguration = CastEmulatorConfiguration(), logger: CastLogger,
        _ body: (CastEmulator, CastDeviceLink) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(configuration: configuration, logger: logger)
        try await emulator.start()
        let result: Result<Void, any Error>
        do {
            let link = try await emulator.inMemoryLink(logger: logger)
            do {
                try await body(emulator, link)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            await link.close()
        } catch {
            result = .failure(error)
        }
        await emulator.stop()
        try result.get()
    }
}

extension Array where Element == CastEmulator {
    /// Connections to these (started) emulators in memory, found by the
    /// port connected to; any other port is reached over the network: a
    /// `CastOptions.connectionFactory` for tests whose sessions are about
    /// what runs above the socket.
    public var inMemoryConnectionFactory: CastConnectionFactory {
        let emulators = Dictionary(self.map { ($0.port, $0) }, uniquingKeysWith: { first, _ in first })
        return CastConnectionFactory { _, port, configuration, logger in
            emulators[port]?.inMemoryConnection(configuration: configuration, logger: logger)
        }
    }
}

extension SoundServer {
    /// Runs `body` in this process's real-time turn with a sound server of
    /// `kind` and an emulated Nest speaker linked in memory: what the
    /// desktop-sound tests send to.
    public static func withLinkedSpeaker(
        _ kind: Kind = .pulseAudio, logger: CastLogger,
        _ body: (SoundServer, CastEmulator, CastDeviceLink) async throws -> Void
    ) async throws {
        try await SoundServer.with(kind) { sound in
            try await RealTimeTurns.take(.thisProcess) {
                try await CastEmulator.withLinked(CastEmulatorConfiguration(profile: .nestSpeaker), logger: logger) {
                    try await body(sound, $0, $1)
                }
            }
        }
    }
}
