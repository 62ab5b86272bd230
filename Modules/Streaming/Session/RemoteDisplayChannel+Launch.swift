public import CastChannels
import CastTransport

extension RemoteDisplayChannel {
    /// Runs the SDK's Remote Display procedure on the connection `receiver`
    /// is attached to: launches ``RemoteDisplayConfiguration/applicationID``
    /// afresh, opens its transport, attaches this channel and begins the
    /// session. End it with ``endSession(stoppingApplication:)``, which stops
    /// the app by its session id.
    ///
    /// The guide asks for the app to be launched with `relaunchIfRunning`.
    /// On the wire there is no such field: Chrome's LAUNCH carries only the
    /// app id, language, app types and parameters (cast_message_util.cc
    /// `CreateLaunchRequest`), and Open Screen's receiver ignores a LAUNCH of
    /// the app it runs, without a reply (application_agent.cc:299-301). So a
    /// session of the app that already runs is stopped by its session id
    /// first, then the app is launched.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/notConnected``
    ///   when `receiver` is not attached; ``CastRemoteDisplayError/Code-swift.struct/launchFailed``
    ///   with the receiver's error as the cause; or what ``beginSession(configuration:)`` throws
    ///   (the app is then stopped again).
    public func launchSession(configuration: RemoteDisplayConfiguration, on receiver: ReceiverChannel)
        async throws(CastRemoteDisplayError) -> RemoteDisplaySession
    {
        let configuration = try configuration.validated()
        try await self.launchApplication(configuration.applicationID, on: receiver)
        do {
            return try await self.beginSession(configuration: configuration)
        } catch {
            await self.endSession(stoppingApplication: true)
            throw error
        }
    }

    /// The first half of ``launchSession(configuration:on:)``: launches
    /// `appID` afresh (a running session of it stopped first), opens its
    /// transport and attaches this channel, without an OFFER yet. For a
    /// sender that must know the device takes the stream before it asks the
    /// user anything (a portal's dialog); then ``beginSession(configuration:)``,
    /// or ``endSession(stoppingApplication:)`` to stop the app again.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/notConnected``
    ///   when `receiver` is not attached; ``CastRemoteDisplayError/Code-swift.struct/launchFailed``
    ///   with the receiver's error as the cause.
    public func launchApplication(_ appID: String, on receiver: ReceiverChannel) async throws(CastRemoteDisplayError) {
        guard let (connection, _) = receiver.currentLink else {
            throw CastRemoteDisplayError(.notConnected, "attach the receiver channel to a connection first")
        }
        let application: ReceiverApplication
        do throws(CastChannelError) {
            if let running = try await receiver.requestStatus().runningApplication(appID: appID),
                let sessionID = running.sessionID
            {
                try await receiver.stop(sessionID: sessionID)
            }
            application = try await receiver.launch(appID: appID, options: LaunchOptions(relaunchIfRunning: true))
        } catch {
            throw CastRemoteDisplayError(.launchFailed, "the receiver did not launch \(appID)", cause: error)
        }
        guard let transportID = application.transportID, let sessionID = application.sessionID else {
            throw CastRemoteDisplayError(.launchFailed, "\(appID) lists no transport or session id")
        }
        do {
            try await connection.openVirtualConnection(to: transportID)
        } catch {
            _ = try? await receiver.stop(sessionID: sessionID)
            throw CastRemoteDisplayError(.launchFailed, "cannot reach \(appID)'s transport", cause: error)
        }
        self.attach(to: connection, destinationID: transportID, logger: self.castLogger)
        self.rememberLaunch(receiver: receiver, sessionID: sessionID)
    }

    /// Ends the session and detaches the channel; with `stoppingApplication`
    /// (the default), stops the app ``launchSession(configuration:on:)``
    /// launched, by its session id — the guide's `stopApplicationWithSessionID:`
    /// — so the receiver does not wait out its own timeout.
    public func endSession(stoppingApplication: Bool = true) async {
        let launched = self.takeLaunch()
        self.currentSession?.stop()
        self.detach()
        if stoppingApplication, let launched {
            _ = try? await launched.receiver.stop(sessionID: launched.sessionID)
        }
    }
}
