import CastChannels
import CastDiscovery

/// Getting a suspended session back: reconnect with back-off to the device
/// as discovery now knows it, and look for the session on other devices
/// when it left this one (stream transfer).
extension SessionManager {
    /// How many other devices stream transfer looks at, at most.
    static let transferCandidateLimit = 8

    /// The machine is about to sleep (logind's `PrepareForSleep(true)`;
    /// CastSystemSleep's `SystemSleepMonitor` calls it): the session is suspended
    /// cleanly — its connection closed, its app left running on the
    /// receiver — and nothing reconnects until ``resumeAfterWake()``, instead
    /// of a heartbeat timing out at wake and a back-off starting late. The
    /// counterpart of the iOS SDK suspending a session in the background.
    public func suspendForSleep() async {
        guard let session = self.currentSession, session.state == .connected else { return }
        self.cancelRecovery()
        let connection = session.disconnect(to: .suspended)
        self.emit(.suspended(session, reason: .systemSleep))
        await connection?.close()
    }

    /// The machine woke (logind's `PrepareForSleep(false)`): a suspended
    /// session reconnects at once, then with the policy's back-off — the
    /// SDK's resume in the foreground. Does nothing without a suspended session.
    public func resumeAfterWake() {
        guard let session = self.currentSession, session.state == .suspended else { return }
        self.startRecovery(of: session, immediately: true)
    }

    /// Reconnects `session` with the policy's back-off until it is back, its
    /// app is gone, or the attempts run out; the first attempt without
    /// waiting when `immediately`.
    func reconnect(_ session: CastSession, immediately: Bool = false) async {
        guard let sessionID = session.sessionID else {
            await self.end(session, reason: .applicationStopped, stoppingApplication: false)
            return
        }
        self.emit(.resuming(session))
        var attempts = 0
        let outcome: Result<EstablishedLink, CastSessionError>
        do {
            let link = try await self.options.reconnectPolicy.retry(
                on: self.options.clock, immediately: immediately,
                retryingWhen: { ($0 as? CastSessionError).map { $0.code != .applicationNotRunning } ?? false },
                attempt: { _ in
                    guard self.currentSession === session, session.state == .suspended else {
                        throw CancellationError()
                    }
                    attempts += 1
                    return try await self.establish(session, on: self.resolve(session.device), rejoining: sessionID)
                })
            outcome = .success(link)
        } catch is CancellationError {
            return  // cancelled, or the session moved on while waiting
        } catch {
            outcome = .failure(CastSessionError.wrapping(error, while: "reconnecting"))
        }
        guard self.currentSession === session, session.state == .suspended else {
            if case .success(let link) = outcome { await link.connection.close() }
            return
        }
        switch outcome {
        case .success(let link):
            self.adopt(link, for: session)
            self.emit(.resumed(session, device: link.device))
        case .failure(let lastError):
            await self.giveUp(on: session, sessionID: sessionID, after: attempts, lastError: lastError)
        }
    }

    /// The attempts ran out: follow the session to another device if it
    /// moved there, else end it.
    private func giveUp(on session: CastSession, sessionID: String, after attempts: Int, lastError: CastSessionError)
        async
    {
        if let link = await self.findTransferredSession(session, sessionID: sessionID) {
            self.adopt(link, for: session)
            self.emit(.resumed(session, device: link.device))
            return
        }
        if lastError.code == .applicationNotRunning {
            await self.end(session, reason: .applicationStopped, stoppingApplication: false)
        } else {
            let error = CastSessionError(
                .reconnectFailed, "could not reconnect after \(attempts) attempts", cause: lastError)
            await self.end(session, reason: .reconnectFailed(error), stoppingApplication: false)
        }
    }

    /// `device` as discovery knows it now (a new address or port), or as it was.
    func resolve(_ device: CastDevice) -> CastDevice {
        self.discoveryManager?.devices.first { $0.id == device.id } ?? device
    }

    /// The receiver-app session `sessionID` on another discovered device, connected, if it runs on one.
    func findTransferredSession(_ session: CastSession, sessionID: String) async -> EstablishedLink? {
        let current = session.device.id
        let candidates = (self.discoveryManager?.devices ?? []).filter { $0.id != current }
        for device in candidates.prefix(Self.transferCandidateLimit) {
            if let link = try? await self.establish(session, on: device, rejoining: sessionID) {
                return link
            }
        }
        return nil
    }
}
