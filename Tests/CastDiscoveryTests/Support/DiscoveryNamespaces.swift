@_spi(Receiver) import CastDiscovery
import CastTestSupport
import NIOPosix

extension NamespacePair {
    /// Runs a started ``DiscoveryManager`` in `namespace`, with a log of its events; stops it afterwards.
    func withBrowser(
        in namespace: String,
        configuration: DiscoveryConfiguration = DiscoveryConfiguration(interfacePollInterval: .milliseconds(300)),
        _ body: (DiscoveryManager, EventLog) async throws -> Void
    ) async throws {
        let group = try self.eventLoopGroup(in: namespace)
        let discovery = DiscoveryManager(configuration: configuration, eventLoopGroup: group, logger: quietLogger)
        let log = EventLog(discovery.events())
        let result = await outcome {
            try await discovery.start()
            try await body(discovery, log)
        }
        await discovery.stop()
        try await group.shutdownGracefully()
        try result.get()
    }
}
