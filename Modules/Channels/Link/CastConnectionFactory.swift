public import CastLogging
public import CastTransport
public import NIOCore

/// Makes the connection a ``CastDeviceLink`` opens to one address of a
/// device: over the network by default, or — for tests and for apps that
/// carry the Cast channel some other way — whatever the closure returns.
///
/// Every sender path takes one (CastKit's `CastOptions`, CastSpeakers'
/// configuration, the `cast` commands), so a test joins a whole app to an
/// emulator in memory by handing it one factory.
public struct CastConnectionFactory: Sendable {
    /// Makes a connection to `host`:`port` with `configuration` and `logger`,
    /// or returns `nil` to have that address reached over the network.
    public typealias Make =
        @Sendable (_ host: String, _ port: Int, _ configuration: CastConnectionConfiguration, _ logger: CastLogger)
        -> CastConnection?

    private let make: Make?
    private let eventLoopGroup: (any EventLoopGroup)?

    /// A factory that asks `make` first and reaches the addresses it declines over the network.
    public init(_ make: @escaping Make) {
        self.make = make
        self.eventLoopGroup = nil
    }

    private init(eventLoopGroup: (any EventLoopGroup)?) {
        self.make = nil
        self.eventLoopGroup = eventLoopGroup
    }

    /// Connections over the network (TCP and TLS), on NIO's shared event loop group.
    public static let network = CastConnectionFactory(eventLoopGroup: nil)

    /// Connections over the network whose sockets run on `eventLoopGroup`.
    public static func network(on eventLoopGroup: any EventLoopGroup) -> CastConnectionFactory {
        CastConnectionFactory(eventLoopGroup: eventLoopGroup)
    }

    /// A connection to `host`:`port`, not yet connected.
    public func connection(
        host: String, port: Int, configuration: CastConnectionConfiguration, logger: CastLogger
    ) -> CastConnection {
        self.make?(host, port, configuration, logger)
            ?? CastConnection(
                host: host, port: port, configuration: configuration, eventLoopGroup: self.eventLoopGroup,
                logger: logger)
    }
}
