import CastCommon
import CastKit
import CastRemoteDisplay

/// One connection to a receiver with its platform channel attached: what
/// every device command starts from.
struct ReceiverLink {
    /// The receiver platform's endpoint.
    static let platformID = CastEndpointID.receiverPlatform

    let connection: CastConnection
    let receiver: ReceiverChannel
    let logger: CastLogger
    /// The device's address, as connected to.
    let host: String
    /// The device's model, when discovery found it by name.
    let modelName: String?
    /// What the device says it can do (its TXT record's `ca`), when discovery found it by name.
    let capabilities: CastDeviceCapabilities?

    /// Makes the connection to a device from its address, its settings and
    /// the logger; a test that runs a command in its own process sets one
    /// that reaches an emulator in memory (`CastEmulator.inMemoryConnection`).
    typealias ConnectionMaker = @Sendable (String, Int, CastConnectionConfiguration, CastLogger) -> CastConnection

    /// Set by a test around a command it runs in its own process.
    @TaskLocal static var connectionMaker: ConnectionMaker?

    /// Connects to `options.device` and opens the platform's virtual connection.
    static func connect(_ options: DeviceOptions) async throws -> ReceiverLink {
        let (host, port, modelName, capabilities) = try await options.address()
        let logger = options.logger
        let timeout = options.timeoutDuration
        let policy = try options.trust.policy()
        let configuration = CastConnectionConfiguration(connectTimeout: timeout, deviceAuthentication: policy)
        let connection =
            Self.connectionMaker?(host, port, configuration, logger)
            ?? CastConnection(host: host, port: port, configuration: configuration, logger: logger)
        Output.progress("connecting to \(host):\(port)")
        try await connection.connect()
        if case .unverified(let failure) = await connection.deviceVerification {
            Output.progress(
                "warning: \(host) is not a verified Cast device (\(failure.code)); use it only if you trust it")
        }
        try await connection.openVirtualConnection(to: ReceiverLink.platformID)
        let receiver = ReceiverChannel(requestTimeout: timeout)
        receiver.attach(to: connection, destinationID: ReceiverLink.platformID, logger: logger)
        return ReceiverLink(
            connection: connection, receiver: receiver, logger: logger, host: host, modelName: modelName,
            capabilities: capabilities)
    }

    /// The running app `appID`, launched when it is not running yet (or
    /// whatever runs, with `appID` nil); attaches `channels` to its transport.
    /// `status` is the receiver status the caller has just read, if any: it
    /// is not asked again (one GET_STATUS before a LAUNCH, not three).
    func application(
        _ appID: String?, attaching channels: [CastChannel], status known: ReceiverStatus? = nil
    ) async throws -> ReceiverApplication {
        let status: ReceiverStatus
        if let known {
            status = known
        } else {
            status = try await self.receiver.requestStatus()
        }
        let running = status.applications.first { !$0.isIdleScreen && (appID == nil || $0.appID == appID) }
        let application: ReceiverApplication
        if let running {
            application = running
        } else if let appID {
            Output.progress("launching \(appID)")
            application = try await self.receiver.launch(appID: appID, knownStatus: status)
        } else {
            throw CommandFailure(.launchFailed, "no app is running on the receiver")
        }
        try await self.join(application, attaching: channels)
        return application
    }

    /// Launches the Remote Display app afresh and begins a session, as the
    /// SDK's guide does it (``RemoteDisplayChannel/launchSession(configuration:on:)``);
    /// end it with `channel.endSession(stoppingApplication:)`.
    func beginRemoteDisplay(_ configuration: RemoteDisplayConfiguration) async throws -> (
        channel: RemoteDisplayChannel, session: RemoteDisplaySession
    ) {
        guard let channel = RemoteDisplayChannel(logger: self.logger) else {
            throw CommandFailure(.other, "this machine cannot run Remote Display: libvpx or libopus does not work")
        }
        // A device without video_out (a speaker, a speaker group) never gets a
        // video OFFER; Chrome launches audio mirroring for it (spec §6.1).
        if configuration.offersVideo, let capabilities = self.capabilities, !capabilities.contains(.videoOut) {
            throw CommandFailure(
                .launchFailed,
                "the device has no screen (capabilities: \(capabilities)); send it sound with `cast audio`")
        }
        Output.progress("launching \(configuration.applicationID)")
        return (channel, try await channel.launchSession(configuration: configuration, on: self.receiver))
    }

    /// Opens a virtual connection to `application`'s transport and attaches `channels` to it.
    func join(_ application: ReceiverApplication, attaching channels: [CastChannel]) async throws {
        guard let transportID = application.transportID else {
            throw CommandFailure(.launchFailed, "\(application.displayName) has no transport to talk to")
        }
        try await self.connection.openVirtualConnection(to: transportID)
        for channel in channels {
            channel.attach(to: self.connection, destinationID: transportID, logger: self.logger)
        }
    }

    /// Connects, runs `body`, and closes the connection whatever happens.
    static func with<Result>(_ options: DeviceOptions, _ body: (ReceiverLink) async throws -> Result)
        async throws -> Result
    {
        let link = try await Self.connect(options)
        do {
            let result = try await body(link)
            await link.close()
            return result
        } catch {
            await link.close()
            throw error
        }
    }

    /// Closes the connection.
    func close() async {
        self.receiver.detach()
        await self.connection.close()
    }
}
