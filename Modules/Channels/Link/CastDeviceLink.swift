import CastCommon
public import CastDiscovery
public import CastLogging
public import CastTransport

/// One connection to a Cast device with its platform channel open: what
/// every sender path starts from — a CastKit session, a CastSpeakers
/// stream, each `cast` command.
///
/// ``connect(to:configuration:factory:receiver:logger:)`` tries the
/// device's addresses (IPv4 first: it needs no zone), authenticates it as
/// `configuration` asks (Google's roots, extra anchors, revocation; required,
/// warned or off), opens the virtual connection to `receiver-0` and attaches
/// the ``ReceiverChannel``. ``join(_:attaching:)`` then reaches a running
/// app's transport; ``ReceiverChannel/launch(appID:options:knownStatus:)``
/// launches or joins one. ``reconnect()`` connects to the same device again
/// the same way; a caller retries it through
/// `ReconnectPolicy.retry(on:immediately:retryingWhen:attempt:)`.
public struct CastDeviceLink: Sendable {
    /// The device, as it was when connected.
    public let device: CastDevice
    /// The address that answered, as text.
    public let host: String
    /// The connection, connected.
    public let connection: CastConnection
    /// The platform channel (`receiver-0`), attached.
    public let receiver: ReceiverChannel
    /// The log hub the link's channels log to.
    public let logger: CastLogger
    /// How it was connected, for ``reconnect()``.
    public let configuration: CastConnectionConfiguration
    /// What made its connection, for ``reconnect()``.
    public let factory: CastConnectionFactory

    /// Connects to `device` and opens its platform channel.
    ///
    /// - Parameters:
    ///   - device: where to connect: its `CastDevice.addresses` in turn, IPv4 first, at its port.
    ///   - configuration: timeouts, heartbeat and device authentication.
    ///   - factory: makes each connection; ``CastConnectionFactory/network`` by default.
    ///   - receiver: the platform channel to attach (a session keeps one across reconnections).
    ///   - logger: the log hub.
    /// - Throws: `CastTransportError`: `connectionFailed` when the device
    ///   has no address, or the last address's failure (refused, timed out,
    ///   device authentication) when none answers.
    public static func connect(
        to device: CastDevice,
        configuration: CastConnectionConfiguration = CastConnectionConfiguration(),
        factory: CastConnectionFactory = .network,
        receiver: ReceiverChannel = ReceiverChannel(),
        logger: CastLogger = .shared
    ) async throws(CastTransportError) -> CastDeviceLink {
        let addresses = device.addresses.filter(\.isV4) + device.addresses.filter { !$0.isV4 }
        var failure = CastTransportError(.connectionFailed, "\(device.friendlyName) has no known address")
        let log = logger.makeLogger(subsystem: "Link")
        for address in addresses {
            let host = address.description
            let connection = factory.connection(
                host: host, port: device.port, configuration: configuration, logger: logger)
            do {
                try await connection.connect()
                try await connection.openVirtualConnection(to: CastEndpointID.receiverPlatform)
                receiver.attach(to: connection, destinationID: CastEndpointID.receiverPlatform, logger: logger)
                return CastDeviceLink(
                    device: device, host: host, connection: connection, receiver: receiver, logger: logger,
                    configuration: configuration, factory: factory)
            } catch {
                // The message names the address; NIO's chain of attempts stays in the debug log.
                log.debug("connecting to \(host):\(device.port): \(error)")
                failure = error
                await connection.close()
            }
        }
        throw failure
    }

    /// Connects to the same device again, with the same configuration,
    /// factory and log hub, and attaches the same ``receiver`` to the new
    /// connection: a sender whose connection dropped carries on from there.
    /// The old link is not closed.
    ///
    /// - Throws: what ``connect(to:configuration:factory:receiver:logger:)`` throws.
    public func reconnect() async throws(CastTransportError) -> CastDeviceLink {
        try await Self.connect(
            to: self.device, configuration: self.configuration, factory: self.factory, receiver: self.receiver,
            logger: self.logger)
    }

    /// Opens a virtual connection to `application`'s transport and attaches `channels` to it.
    ///
    /// - Throws: ``CastChannelError/Code/unexpectedReply`` when the app
    ///   lists no transport; ``CastChannelError/Code/notConnected`` when
    ///   the connection is down.
    public func join(_ application: ReceiverApplication, attaching channels: [CastChannel] = [])
        async throws(CastChannelError)
    {
        guard let transportID = application.transportID else {
            throw CastChannelError(.unexpectedReply, "\(application.displayName) lists no transport to talk to")
        }
        do {
            try await self.connection.openVirtualConnection(to: transportID)
        } catch {
            throw CastChannelError(.notConnected, "cannot reach \(application.displayName)", cause: error)
        }
        for channel in channels {
            channel.attach(to: self.connection, destinationID: transportID, logger: self.logger)
        }
    }

    /// The app `appID` running on the device — launched when it does not
    /// run (``ReceiverChannel/launch(appID:options:knownStatus:)``: a LAUNCH
    /// answered CANCELLED is sent once more), joined when it does — with
    /// `channels` attached to its transport.
    ///
    /// - Parameters:
    ///   - appID: the app to run.
    ///   - options: the LAUNCH's options, when it is launched.
    ///   - channels: the channels to attach to the app's transport.
    ///   - knownStatus: the receiver status the caller has just read, if
    ///     any: it is not asked again.
    /// - Throws: what ``ReceiverChannel/launch(appID:options:knownStatus:)``
    ///   and ``join(_:attaching:)`` throw.
    public func application(
        _ appID: String, options: LaunchOptions = LaunchOptions(), attaching channels: [CastChannel] = [],
        knownStatus: ReceiverStatus? = nil
    ) async throws(CastChannelError) -> ReceiverApplication {
        let application = try await self.receiver.launch(appID: appID, options: options, knownStatus: knownStatus)
        try await self.join(application, attaching: channels)
        return application
    }

    /// The app running on the device other than its idle screen, joined,
    /// with `channels` attached to its transport.
    ///
    /// - Throws: ``CastChannelError/Code/noApplication`` when none runs;
    ///   what ``ReceiverChannel/requestStatus()`` and ``join(_:attaching:)`` throw.
    public func runningApplication(attaching channels: [CastChannel] = []) async throws(CastChannelError)
        -> ReceiverApplication
    {
        guard let running = try await self.receiver.requestStatus().runningApplication else {
            throw CastChannelError(.noApplication, "no app is running on the receiver")
        }
        try await self.join(running, attaching: channels)
        return running
    }

    /// Detaches the platform channel and closes the connection.
    public func close() async {
        self.receiver.detach()
        await self.connection.close()
    }
}
