public import CastDiscovery
public import CastEmulator
public import CastLogging
public import CastTransport

extension CastEmulator {
    /// The emulator as a device known by its address (127.0.0.1 and its
    /// port), as a sender that does not browse would have it.
    public var loopbackDevice: CastDevice {
        CastDevice(
            id: "emulator-\(self.port)", friendlyName: "Emulator", modelName: "", capabilities: [],
            status: .unknown(nil), addresses: [IPAddress("127.0.0.1")!], port: self.port, source: .knownHost)
    }
}

extension Array where Element == CastEmulator {
    /// Connections to these (started) emulators in memory, found by the
    /// device's port, and `nil` for any other device, which is then reached
    /// over the network: a `CastOptions.connectionMaker` for tests whose
    /// sessions are about what runs above the socket.
    public var inMemoryConnectionMaker:
        @Sendable (CastDevice, CastConnectionConfiguration, CastLogger) -> CastConnection?
    {
        let emulators = Dictionary(self.map { ($0.port, $0) }, uniquingKeysWith: { first, _ in first })
        return { device, configuration, logger in
            emulators[device.port]?.inMemoryConnection(configuration: configuration, logger: logger)
        }
    }
}
