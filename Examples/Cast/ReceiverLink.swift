import CastKit
import CastRemoteDisplay

/// One connection to a receiver with its platform channel attached (the
/// SDK's ``CastDeviceLink``), with what the command line says about it.
struct ReceiverLink {
    let link: CastDeviceLink
    let logger: CastLogger
    var connection: CastConnection { self.link.connection }
    var receiver: ReceiverChannel { self.link.receiver }
    /// The device's address, as connected to.
    var host: String { self.link.host }
    /// The device's model, when discovery found it by name.
    var modelName: String? { self.link.device.modelName.isEmpty ? nil : self.link.device.modelName }

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
    func application(_ appID: String?, attaching channels: [CastChannel]) async throws -> ReceiverApplication {
        guard let appID else { return try await self.link.runningApplication(attaching: channels) }
        let status = try await self.receiver.requestStatus()
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
