import CastCommon
import CastKit
import CastRemoteDisplay

/// One connection to a receiver with its platform channel attached (the
/// SDK's ``CastDeviceLink``), with what the command line says about it.
struct ReceiverLink {
    /// The receiver platform's endpoint.
    static let platformID = CastEndpointID.receiverPlatform

    let link: CastDeviceLink
    let logger: CastLogger
    var connection: CastConnection { self.link.connection }
    var receiver: ReceiverChannel { self.link.receiver }
    /// The device's address, as connected to.
    var host: String { self.link.host }
    /// The device's model, when discovery found it by name.
    var modelName: String? { self.link.device.modelName.isEmpty ? nil : self.link.device.modelName }
    /// What the device says it can do (its TXT record's `ca`), when discovery found it by name.
    var capabilities: CastDeviceCapabilities? {
        self.link.device.source == .knownHost ? nil : self.link.device.capabilities
    }

    /// How commands make their connections; a test that runs a command in
    /// its own process sets one that reaches an emulator in memory.
    @TaskLocal static var connectionFactory = CastConnectionFactory.network

    /// Connects to `options.device` and opens the platform's virtual connection.
    static func connect(_ options: DeviceOptions) async throws -> ReceiverLink {
        let device = try await options.resolveDevice()
        let logger = options.logger
        let timeout = options.timeoutDuration
        let configuration = CastConnectionConfiguration(
            connectTimeout: timeout, deviceAuthentication: try options.trust.policy())
        Output.progress(
            device.source == .knownHost
                ? "connecting to \(device.id)" : "connecting to \(device.friendlyName) on port \(device.port)")
        let link = try await CastDeviceLink.connect(
            to: device, configuration: configuration, factory: Self.connectionFactory,
            receiver: ReceiverChannel(requestTimeout: timeout), logger: logger)
        if case .unverified(let failure) = await link.connection.deviceVerification {
            Output.progress(
                "warning: \(link.host) is not a verified Cast device (\(failure.code)); use it only if you trust it")
        }
        return ReceiverLink(link: link, logger: logger)
    }

    /// The running app `appID`, launched when it is not running yet (or
    /// whatever runs, with `appID` nil); attaches `channels` to its transport.
    /// `status` is the receiver status the caller has just read, if any: it
    /// is not asked again (one GET_STATUS before a LAUNCH, not three).
    func application(
        _ appID: String?, attaching channels: [CastChannel], status known: ReceiverStatus? = nil
    ) async throws -> ReceiverApplication {
        let status: ReceiverStatus
        if let known { status = known } else { status = try await self.receiver.requestStatus() }
        guard let appID else {
            guard let running = status.applications.first(where: { !$0.isIdleScreen }) else {
                throw CommandFailure(.launchFailed, "no app is running on the receiver")
            }
            try await self.join(running, attaching: channels)
            return running
        }
        if status.runningApplication(appID: appID) == nil { Output.progress("launching \(appID)") }
        return try await self.link.application(appID, attaching: channels, knownStatus: status)
    }

    /// Launches the Remote Display app afresh and begins a session, as the
    /// SDK's guide does it (``RemoteDisplayChannel/launchSession(configuration:through:)``,
    /// which refuses a device without a screen before launching anything);
    /// end it with `channel.endSession(stoppingApplication:)`.
    func beginRemoteDisplay(_ configuration: RemoteDisplayConfiguration) async throws -> (
        channel: RemoteDisplayChannel, session: RemoteDisplaySession
    ) {
        guard let channel = RemoteDisplayChannel(logger: self.logger) else {
            throw CommandFailure(.other, "this machine cannot run Remote Display: libvpx or libopus does not work")
        }
        Output.progress("launching \(configuration.applicationID)")
        return (channel, try await channel.launchSession(configuration: configuration, through: self.link))
    }

    /// Opens a virtual connection to `application`'s transport and attaches `channels` to it.
    func join(_ application: ReceiverApplication, attaching channels: [CastChannel]) async throws {
        guard application.transportID != nil else {
            throw CommandFailure(.launchFailed, "\(application.displayName) has no transport to talk to")
        }
        try await self.link.join(application, attaching: channels)
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
        await self.link.close()
    }
}
