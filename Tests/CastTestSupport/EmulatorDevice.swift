public import CastChannels
@_spi(Receiver) public import CastDiscovery
public import CastEmulator
import CastLogging
@_spi(Receiver) import CastTransport

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
