public import CastDiscovery
public import NIOCore
import NIOPosix

/// The framework's entry point: discovery and sessions, configured once
/// with ``CastOptions`` — the SDK's `GCKCastContext`.
///
/// Discovery does not start by itself: call
/// `try await context.discoveryManager.start()` when the app wants devices
/// (it multicasts on the configured interfaces). Make the context early
/// and call ``SessionManager/resumeSavedSession()`` to pick up a session a
/// previous process left running.
///
/// ```swift
/// let context = CastContext(options: CastOptions(receiverApplicationID: "CC1AD845"))
/// try await context.discoveryManager.start()
/// // … the user picks `device` from context.discoveryManager.devices …
/// let session = try await context.sessionManager.startSession(on: device)
/// ```
public final class CastContext: Sendable {
    /// The options the context was made with.
    public let options: CastOptions
    /// Finds receivers, filtered by ``CastOptions/discovery``.
    public let discoveryManager: DiscoveryManager
    /// Starts, ends and keeps alive sessions.
    public let sessionManager: SessionManager

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - options: what to launch, how to discover, connect and reconnect.
    ///   - eventLoopGroup: where sockets run; `nil` for NIO's shared group.
    public init(options: CastOptions = CastOptions(), eventLoopGroup: (any EventLoopGroup)? = nil) {
        let group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        self.options = options
        self.discoveryManager = DiscoveryManager(
            configuration: options.discovery, eventLoopGroup: group, logger: options.logger)
        self.sessionManager = SessionManager(
            options: options, discoveryManager: self.discoveryManager, eventLoopGroup: group)
    }
}
