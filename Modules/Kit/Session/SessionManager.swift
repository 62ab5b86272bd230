import CastChannels
import CastCommon
public import CastDiscovery
import CastLogging
import CastTransport
import Logging
public import NIOCore
import NIOPosix

/// Starts, ends and keeps alive the sender's session: the SDK's `GCKSessionManager`.
///
/// Starting a session connects to the device (TCP, TLS, device
/// authentication as configured), opens the virtual connection to
/// `receiver-0`, launches the configured app — or joins it when it already
/// runs — opens the virtual connection to the app's transport, and attaches
/// the session's channels whose namespaces the app lists.
///
/// While a session runs the manager watches it. A lost connection or a
/// heartbeat timeout suspends it and reconnects with the options'
/// `ReconnectPolicy`, re-resolving the device through discovery (its
/// address may have changed), and rejoins the same receiver-app session.
/// If the app stopped meanwhile, the session ends with
/// ``SessionEndReason/applicationStopped``; if the session now runs on
/// another discovered device (stream transfer), it resumes there.
///
/// Every change is a ``SessionEvent`` on ``events()``, which any number of
/// listeners can follow.
public actor SessionManager {
    /// The options the manager was made with.
    public nonisolated let options: CastOptions
    /// Where devices are re-resolved when reconnecting, and looked for after stream transfer.
    public nonisolated let discoveryManager: DiscoveryManager?

    /// Where sockets run.
    nonisolated let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let broadcaster = EventBroadcaster<SessionEvent>(initial: nil, replaysLatest: false)
    private var watcher: Task<Void, Never>?
    private var recovery: Task<Void, Never>?

    /// The session, from ``startSession(on:)`` until it ends.
    public private(set) var currentSession: CastSession?

    /// Creates a session manager; a ``CastContext`` makes one for you.
    ///
    /// - Parameters:
    ///   - options: what to launch, how to connect and reconnect, where to remember sessions.
    ///   - discoveryManager: the device list to re-resolve devices in; `nil` to always use the last address.
    ///   - eventLoopGroup: where sockets run; `nil` for NIO's shared group.
    public init(
        options: CastOptions = CastOptions(),
        discoveryManager: DiscoveryManager? = nil,
        eventLoopGroup: (any EventLoopGroup)? = nil
    ) {
        self.options = options
        self.discoveryManager = discoveryManager
        self.eventLoopGroup = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        self.logger = options.logger.makeLogger(subsystem: "Kit.SessionManager")
    }

    deinit {
        self.watcher?.cancel()
        self.recovery?.cancel()
    }

    /// Every session event from now on; each call gives a new, independent stream.
    public nonisolated func events() -> AsyncStream<SessionEvent> {
        self.broadcaster.subscribe()
    }

    // MARK: Starting and ending

    /// Starts a session with the configured app on `device`, ending the
    /// current session first (``SessionEndReason/replaced``), if any.
    ///
    /// - Throws: ``CastSessionError`` — ``CastSessionError/Code/connectionFailed``,
    ///   ``CastSessionError/Code/launchFailed`` (with the receiver's reason),
    ///   ``CastSessionError/Code/requestFailed`` (a launch timeout, for one),
    ///   or ``CastSessionError/Code/cancelled`` if the session was ended meanwhile.
    ///   ``SessionEvent/failedToStart(_:_:)`` reports the same error.
    @discardableResult
    public func startSession(on device: CastDevice) async throws(CastSessionError) -> CastSession {
        if let current = self.currentSession {
            await self.end(current, reason: .replaced, stoppingApplication: false)
        }
        let session = self.makeSession(on: device)
        self.currentSession = session
        self.emit(.starting(session))
        do {
            let link = try await self.establish(session, on: device, rejoining: nil)
            guard self.currentSession === session, session.state == .starting else {
                await link.connection.close()
                throw CastSessionError(.cancelled, "the session was ended while it started")
            }
            self.adopt(link, for: session)
            self.emit(.started(session))
            return session
        } catch {
            let failure = CastSessionError.wrapping(error, while: "starting")
            if self.currentSession === session { self.currentSession = nil }
            session.disconnect(to: .ended)
            self.emit(.failedToStart(session, failure))
            throw failure
        }
    }

    /// Ends the current session. The app keeps running for other senders
    /// unless `stoppingApplication`, which stops it by its session id.
    public func endSession(stoppingApplication: Bool = false) async {
        guard let session = self.currentSession else { return }
        await self.end(session, reason: .requested, stoppingApplication: stoppingApplication)
    }

    /// Resumes the session a previous process saved in ``CastOptions/sessionStore``
    /// (the SDK's resume after a crash): finds the device (through discovery,
    /// or at its last address), and rejoins the receiver-app session.
    ///
    /// - Returns: the resumed session; `nil` when nothing is saved (or it was
    ///   saved for another app).
    /// - Throws: ``CastSessionError/Code/sessionStoreFailed``;
    ///   ``CastSessionError/Code/applicationNotRunning`` when the app
    ///   stopped meanwhile (the store is cleared); or a connection error.
    @discardableResult
    public func resumeSavedSession() async throws(CastSessionError) -> CastSession? {
        guard let store = self.options.sessionStore else { return nil }
        let saved: SavedSession?
        do {
            saved = try store.load()
        } catch {
            throw CastSessionError(.sessionStoreFailed, "cannot read the saved session", cause: error)
        }
        guard let saved, saved.applicationID == self.options.receiverApplicationID else { return nil }
        if let current = self.currentSession, current.sessionID == saved.sessionID { return current }
        if let current = self.currentSession {
            await self.end(current, reason: .replaced, stoppingApplication: false)
        }
        let device =
            self.discoveryManager?.devices.first { $0.id == saved.deviceID }
            ?? CastDevice(
                id: saved.deviceID, friendlyName: saved.deviceName, modelName: "", capabilities: [],
                status: .unknown(nil), addresses: IPAddress(saved.host).map { [$0] } ?? [], port: saved.port,
                source: .knownHost)
        let session = self.makeSession(on: device)
        session.setState(.suspended)
        self.currentSession = session
        self.emit(.resuming(session))
        do {
            let link = try await self.establish(session, on: device, rejoining: saved.sessionID)
            guard self.currentSession === session, session.state == .suspended else {
                await link.connection.close()
                throw CastSessionError(.cancelled, "the session was ended while it resumed")
            }
            self.adopt(link, for: session)
            self.emit(.resumed(session, device: link.device))
            return session
        } catch {
            let failure = CastSessionError.wrapping(error, while: "resuming")
            let reason: SessionEndReason =
                failure.code == .applicationNotRunning ? .applicationStopped : .reconnectFailed(failure)
            await self.end(session, reason: reason, stoppingApplication: false)
            throw failure
        }
    }

    // MARK: Connecting

    /// A connected link to a running app.
    struct EstablishedLink {
        let connection: CastConnection
        let application: ReceiverApplication
        let transportID: String
        let device: CastDevice
        let verification: DeviceVerification
    }

    /// Connects to `device` (``CastDeviceLink``: its platform channel is
    /// `session.receiver`), then launches (or joins) the app — or, with
    /// `sessionID`, finds that receiver-app session — and opens its transport.
    func establish(_ session: CastSession, on device: CastDevice, rejoining sessionID: String?)
        async throws(CastSessionError) -> EstablishedLink
    {
        let link = try await self.link(to: device, receiver: session.receiver)
        do {
            let application: ReceiverApplication
            if let sessionID {
                guard let running = try await link.receiver.requestStatus().application(sessionID: sessionID),
                    !running.isIdleScreen
                else {
                    throw CastSessionError(
                        .applicationNotRunning, "session \(sessionID) no longer runs on \(device.friendlyName)")
                }
                application = running
            } else {
                application = try await link.receiver.launch(
                    appID: self.options.receiverApplicationID, options: self.options.launchOptions)
            }
            guard let transportID = application.transportID, application.sessionID != nil else {
                throw CastSessionError(.applicationUnreachable, "\(application.appID) lists no transport or session id")
            }
            try await link.join(application)
            return EstablishedLink(
                connection: link.connection, application: application, transportID: transportID, device: device,
                verification: await link.connection.deviceVerification)
        } catch {
            await link.close()
            throw CastSessionError.wrapping(error, while: sessionID == nil ? "starting" : "rejoining")
        }
    }

    /// A ``CastDeviceLink`` to `device` through the options' connection
    /// factory (the network, on this manager's event loop group, by default).
    func link(to device: CastDevice, receiver: ReceiverChannel) async throws(CastSessionError) -> CastDeviceLink {
        guard !device.addresses.isEmpty else {
            throw CastSessionError(.noAddress, "\(device.friendlyName) has no known address")
        }
        do {
            return try await CastDeviceLink.connect(
                to: device, configuration: self.options.connection,
                factory: self.options.connectionFactory ?? .network(on: self.eventLoopGroup), receiver: receiver,
                logger: self.options.logger)
        } catch {
            throw CastSessionError(.connectionFailed, "cannot connect to \(device.friendlyName)", cause: error)
        }
    }

    // MARK: Running

    /// Makes `link` the session's connection: attaches channels, remembers the session, watches the link.
    func adopt(_ link: EstablishedLink, for session: CastSession) {
        let generation = session.connect(
            link.connection, application: link.application, transportID: link.transportID, device: link.device,
            verification: link.verification)
        self.save(session, connection: link.connection)
        self.watch(session, link: link, generation: generation)
    }

    /// What ends a link.
    enum LinkSignal: Sendable {
        case connectionLost(CastTransportError)
        case applicationClosed
    }

    /// Waits for the first sign the link is over: the socket ending, the
    /// app's transport closing, or a status without the session.
    private func watch(_ session: CastSession, link: EstablishedLink, generation: Int) {
        let states = link.connection.stateUpdates()
        let virtualConnections = link.connection.virtualConnectionEvents()
        let statuses = session.receiver.events()
        let transportID = link.transportID
        let sessionID = link.application.sessionID
        self.watcher?.cancel()
        self.watcher = Task { [weak self] in
            let signal = await withTaskGroup(of: LinkSignal?.self) { group -> LinkSignal? in
                group.addTask {
                    for await state in states {
                        if case .disconnected(let reason) = state { return .connectionLost(reason) }
                    }
                    return nil
                }
                group.addTask {
                    for await event in virtualConnections {
                        if case .closedByPeer(transportID, _) = event { return .applicationClosed }
                    }
                    return nil
                }
                group.addTask {
                    for await event in statuses {
                        if case .statusChanged(let status) = event,
                            status.application(sessionID: sessionID ?? "") == nil
                        {
                            return .applicationClosed
                        }
                    }
                    return nil
                }
                for await signal in group {
                    if let signal {
                        group.cancelAll()
                        return signal
                    }
                }
                return nil
            }
            guard let signal, !Task.isCancelled else { return }
            await self?.handle(signal, session: session, generation: generation)
        }
    }

    private func handle(_ signal: LinkSignal, session: CastSession, generation: Int) async {
        guard self.currentSession === session, session.generation == generation, session.state == .connected else {
            return
        }
        switch signal {
        case .connectionLost(let reason):
            self.suspend(
                session, reason: reason.code == .heartbeatTimedOut ? .heartbeatTimedOut : .connectionLost(reason))
        case .applicationClosed:
            await self.applicationClosed(session, generation: generation)
        }
    }

    /// The app's transport closed or the status lost the session (§3): if
    /// the app still runs, only this sender's link was dropped, so CONNECT
    /// again; if it runs on another device, follow it; else the session is over.
    private func applicationClosed(_ session: CastSession, generation: Int) async {
        guard let sessionID = session.sessionID, let connection = session.connection else { return }
        let status: ReceiverStatus
        do {
            status = try await session.receiver.requestStatus()
        } catch {
            // No answer is no verdict: treat it as a lost connection.
            guard session.generation == generation, session.state == .connected else { return }
            self.suspend(
                session, reason: .connectionLost(CastTransportError(.closedByPeer, "the receiver stopped answering")))
            return
        }
        guard self.currentSession === session, session.generation == generation, session.state == .connected else {
            return
        }
        if let application = status.application(sessionID: sessionID), let transportID = application.transportID {
            do {
                try await connection.openVirtualConnection(to: transportID)
                self.adopt(
                    EstablishedLink(
                        connection: connection, application: application, transportID: transportID,
                        device: session.device, verification: await connection.deviceVerification),
                    for: session)
            } catch {
                self.suspend(session, reason: .connectionLost(error))
            }
            return
        }
        await session.disconnect(to: .suspended)?.close()
        if let link = await self.findTransferredSession(session, sessionID: sessionID) {
            self.emit(.suspended(session, reason: .applicationMoved))
            self.emit(.resuming(session))
            self.adopt(link, for: session)
            self.emit(.resumed(session, device: link.device))
        } else {
            await self.end(session, reason: .applicationStopped, stoppingApplication: false)
        }
    }

    /// Suspends the session and starts reconnecting.
    private func suspend(_ session: CastSession, reason: SessionSuspendReason) {
        let connection = session.disconnect(to: .suspended)
        Task { await connection?.close() }
        self.emit(.suspended(session, reason: reason))
        self.startRecovery(of: session, immediately: false)
    }

    /// Starts reconnecting `session`, in place of any reconnection running.
    func startRecovery(of session: CastSession, immediately: Bool) {
        self.recovery?.cancel()
        self.recovery = Task { [weak self] in await self?.reconnect(session, immediately: immediately) }
    }

    /// Stops any reconnection running.
    func cancelRecovery() {
        self.recovery?.cancel()
        self.recovery = nil
    }

    /// Ends `session`: leaves (or stops) the app, closes the connection,
    /// forgets the saved session, and reports it.
    func end(_ session: CastSession, reason: SessionEndReason, stoppingApplication: Bool) async {
        guard session.state != .ending, session.state != .ended else { return }
        self.watcher?.cancel()
        self.recovery?.cancel()
        session.setState(.ending)
        self.emit(.ending(session))
        if let connection = session.connection, let transportID = session.transportID {
            if stoppingApplication, let sessionID = session.sessionID {
                _ = try? await session.receiver.stop(sessionID: sessionID)
            } else {
                try? await connection.closeVirtualConnection(to: transportID)
            }
        }
        await session.disconnect(to: .ended)?.close()
        if self.currentSession === session {
            self.currentSession = nil
            self.forgetSavedSession()
        }
        self.emit(.ended(session, reason: reason))
    }

    // MARK: Helpers

    private func makeSession(on device: CastDevice) -> CastSession {
        CastSession(
            device: device,
            applicationID: self.options.receiverApplicationID,
            receiver: ReceiverChannel(
                requestTimeout: self.options.requestTimeout, launchTimeout: self.options.launchTimeout,
                clock: self.options.clock),
            requestTimeout: self.options.requestTimeout,
            clock: self.options.clock,
            logger: self.options.logger
        )
    }

    func emit(_ event: SessionEvent) {
        self.logger.info("session event", metadata: ["cast.event": "\(event)"])
        self.broadcaster.yield(event)
    }

    private func save(_ session: CastSession, connection: CastConnection) {
        guard let store = self.options.sessionStore, let sessionID = session.sessionID else { return }
        let device = session.device
        let saved = SavedSession(
            deviceID: device.id, deviceName: device.friendlyName, applicationID: session.applicationID,
            sessionID: sessionID, host: connection.host, port: connection.port)
        do {
            try store.save(saved)
        } catch {
            self.logger.warning("cannot save the session", metadata: ["cast.reason": "\(error)"])
        }
    }

    private func forgetSavedSession() {
        do {
            try self.options.sessionStore?.clear()
        } catch {
            self.logger.warning("cannot clear the saved session", metadata: ["cast.reason": "\(error)"])
        }
    }
}
