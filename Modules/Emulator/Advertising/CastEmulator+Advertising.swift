@_spi(Receiver) public import CastDiscovery
import Crypto

extension CastEmulator {
    /// How this emulator shows itself to discovery: its configured name as the
    /// friendly name, its profile's model name and capabilities (so a speaker
    /// profile advertises no `video_out`), its listening port, and an id
    /// derived from the name (the same name always gives the same id). Ask
    /// after ``start(port:)``, when the port is known.
    public var advertisement: CastAdvertisement {
        let digest = SHA256.hash(data: Array(self.configuration.name.utf8))
        let id = digest.prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        let profile = self.configuration.profile
        return CastAdvertisement(
            id: id, friendlyName: self.configuration.name, modelName: profile.modelName,
            capabilities: profile.capabilities, port: self.port)
    }

    /// A responder advertising this emulator (``advertisement``) on `interfaces`,
    /// running on the emulator's event loops. Start it after the emulator.
    ///
    /// Loopback is the default: on a shared machine, multicast belongs on
    /// loopback or inside a network namespace.
    public func makeResponder(
        interfaces: InterfaceSelection = .loopbackOnly,
        addressFamilies: AddressFamilies = .all,
        port: Int = 5353
    ) -> MDNSResponder {
        MDNSResponder(
            advertisement: self.advertisement,
            interfaces: interfaces,
            addressFamilies: addressFamilies,
            port: port,
            eventLoopGroup: self.eventLoopGroup,
            logger: self.castLogger
        )
    }
}
