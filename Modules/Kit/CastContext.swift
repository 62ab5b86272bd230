public import CastDiscovery
import Logging
import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

/// The framework's entry point: discovery and sessions, configured once
/// with ``CastOptions`` — the SDK's `GCKCastContext`.
///
/// Make the context early and call ``start()``: as the SDK does when its
/// context is set up, that starts discovery (passive, until a device chooser
/// asks for active scanning) and resumes the session a previous process left
/// running (saved in ``CastOptions/sessionStore``, a file in the XDG state
/// directory by default). Sessions then start from the devices found.
///
/// ```swift
/// let context = CastContext(options: CastOptions(receiverApplicationID: "CC1AD845"))
/// try await context.start()
/// // … the user picks `device` from context.applicationDevices.devices …
/// let session = try await context.sessionManager.startSession(on: device)
/// ```
public final class CastContext: Sendable {
    /// The options the context was made with.
    public let options: CastOptions
    /// Finds receivers, filtered by ``CastOptions/discovery``.
    public let discoveryManager: DiscoveryManager
    /// Starts, ends and keeps alive sessions.
    public let sessionManager: SessionManager
    /// The devices discovery found that can run ``CastOptions/receiverApplicationID``:
    /// the one list the Cast button, the introduction prompt and the device chooser count.
    public let applicationDevices: ApplicationDevices
    /// Each device's manufacturer and model, asked once per device (``CastOptions/deviceDetails``).
    public let deviceDetails: DeviceDetailsDirectory

    private let resumption = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let logger: Logger

    /// Creates a context; nothing touches the network until ``start()``.
    ///
    /// - Parameters:
    ///   - options: what to launch, how to discover, connect and reconnect.
    ///   - eventLoopGroup: where sockets run; `nil` for NIO's shared group.
    public init(options: CastOptions = CastOptions(), eventLoopGroup: (any EventLoopGroup)? = nil) {
        let group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        self.options = options
        self.logger = options.logger.makeLogger(subsystem: "Kit.CastContext")
        self.discoveryManager = DiscoveryManager(
            configuration: options.discovery, eventLoopGroup: group, logger: options.logger)
        self.sessionManager = SessionManager(
            options: options, discoveryManager: self.discoveryManager, eventLoopGroup: group)
        self.applicationDevices = ApplicationDevices(
            discoveryManager: self.discoveryManager, sessionManager: self.sessionManager,
            applicationID: options.receiverApplicationID, maximumConcurrentChecks: options.availabilityChecksAtOnce)
        self.deviceDetails = DeviceDetailsDirectory(configuration: options.deviceDetails, eventLoop: group.next())
    }

    deinit {
        self.resumption.withLockedValue { $0?.cancel() }
    }

    /// Starts discovery in the configured scan mode (passive by default) and,
    /// in the background, resumes the saved session, if any: the session
    /// manager reports it as ``SessionEvent/resuming(_:)`` then
    /// ``SessionEvent/resumed(_:device:)``, or ends it when the app stopped
    /// meanwhile. Calling it again while started does nothing.
    ///
    /// - Throws: `DiscoveryError.Code.socketFailed` when no mDNS socket
    ///   could be opened on the selected interfaces.
    public func start() async throws(DiscoveryError) {
        do {
            try await self.discoveryManager.start()
        } catch  where error.code == .alreadyStarted {
            return
        }
        guard self.options.sessionStore != nil else { return }
        let sessionManager = self.sessionManager
        let logger = self.logger
        let task = Task {
            do {
                try await sessionManager.resumeSavedSession()
            } catch {
                logger.info("the saved session was not resumed", metadata: ["cast.reason": "\(error)"])
            }
        }
        self.resumption.withLockedValue { $0 = task }
    }

    /// Waits until the resumption ``start()`` began has finished, whichever way.
    public func resumptionFinished() async {
        await self.resumption.withLockedValue { $0 }?.value
    }

    /// Stops discovery; the session, if any, goes on.
    public func stop() async {
        await self.discoveryManager.stop()
    }
}
