public import CastDiscovery
public import CastEmulator

extension CastEmulator {
    /// The emulator as a device known by its address (127.0.0.1 and its
    /// port), as a sender that does not browse would have it.
    public var loopbackDevice: CastDevice {
        CastDevice(
            id: "emulator-\(self.port)", friendlyName: "Emulator", modelName: "", capabilities: [],
            status: .unknown(nil), addresses: [IPAddress("127.0.0.1")!], port: self.port, source: .knownHost)
    }
}
