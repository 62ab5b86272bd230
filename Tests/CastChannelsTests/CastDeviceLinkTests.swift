import CastChannels
@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
@_spi(Receiver) import CastTransport
import NIOConcurrencyHelpers
import Testing

/// The one way every sender path reaches a device: addresses in order,
/// the platform channel attached, an app's transport joined.
@Suite(.timeLimit(.minutes(3))) struct CastDeviceLinkTests {
    /// A device whose first IPv4 address refuses: the link goes on to the
    /// next one, IPv4 before IPv6, and its receiver channel answers there.
    @Test func aRefusingAddressIsSkippedForTheNextIPv4Address() async throws {
        let emulator = try CastEmulator(logger: quietLogger)
        try await emulator.start()
        do {
            try await self.skipsTheRefusingAddress(reaching: emulator)
        } catch {
            Issue.record(error)
        }
        await emulator.stop()
    }

    private func skipsTheRefusingAddress(reaching emulator: CastEmulator) async throws {
        let asked = NIOLockedValueBox<[String]>([])
        let factory = CastConnectionFactory { host, _, configuration, logger in
            asked.withLockedValue { $0.append(host) }
            // 127.0.0.3 is reached over the network, at a port where nothing listens.
            return host == "127.0.0.1" ? emulator.inMemoryConnection(configuration: configuration, logger: logger) : nil
        }
        let device = CastDevice(
            id: "two-addresses", friendlyName: "Den", modelName: "", capabilities: [],
            addresses: [IPAddress("::1")!, IPAddress("127.0.0.3")!, IPAddress("127.0.0.1")!], port: 1,
            source: .knownHost)
        let link = try await CastDeviceLink.connect(
            to: device, configuration: CastConnectionConfiguration(deviceAuthentication: .off), factory: factory,
            logger: quietLogger)
        #expect(asked.withLockedValue { $0 } == ["127.0.0.3", "127.0.0.1"])
        #expect(link.host == "127.0.0.1")
        let launched = try await link.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
        let media = try GenericChannel(namespace: CastNamespace.media)
        try await link.join(launched, attaching: [media])
        #expect(media.isConnected)
        await link.close()
        #expect(!link.receiver.isConnected)
    }

    @Test func aDeviceWithoutAnAddressFailsWithoutConnecting() async {
        let device = CastDevice(
            id: "nowhere", friendlyName: "Attic", modelName: "", capabilities: [], addresses: [], port: 8009,
            source: .knownHost)
        let factory = CastConnectionFactory { _, _, _, _ in
            Issue.record("no connection may be made")
            return nil
        }
        await #expect {
            try await CastDeviceLink.connect(to: device, factory: factory, logger: quietLogger)
        } throws: { error in
            (error as? CastTransportError)?.code == .connectionFailed
                && (error as? CastTransportError)?.message == "Attic has no known address"
        }
    }

    /// Every address refusing: the error is the last address's, in one sentence.
    @Test func whenNoAddressAnswersTheLastFailureIsThrown() async {
        let device = CastDevice(knownHost: IPAddress("127.0.0.1")!, port: 1)
        await #expect {
            try await CastDeviceLink.connect(to: device, logger: quietLogger)
        } throws: { error in
            guard let error = error as? CastTransportError else { return false }
            return error.code == .connectionFailed && error.summary.hasSuffix("connection refused")
        }
    }
}
