public import CastChannels

/// The receiver platform seen from the test's side: what runs, and the
/// changes a user at the TV (or another sender) would make. Each change is
/// announced to connected senders as a real receiver would.
extension CastEmulator {
    /// The running app's session, or `nil` when only the idle screen (or nothing) shows.
    public var runningApplication: EmulatedAppSession? {
        self.platformHub.withPlatform { $0.runningApp }
    }

    /// The device volume.
    public var volume: ReceiverVolume {
        self.platformHub.withPlatform { ReceiverVolume(level: $0.volumeLevel, isMuted: $0.isMuted) }
    }

    /// Changes the device volume as a user at the TV would (the remote's
    /// volume keys; a part left `nil` stays as it is): every sender
    /// connected to `receiver-0` gets the new RECEIVER_STATUS, as a real
    /// receiver broadcasts it (requestId 0). A receiver tells every sender
    /// of a change it did not request with a RECEIVER_STATUS of requestId 0:
    /// conformance 029 (a Nest Hub's broadcast status after a launch) and
    /// 025/026 (status with the device's volume); Open Screen's receiver
    /// has no SET_VOLUME (../shared/peers.md), so this follows the captured payloads.
    public func setVolume(_ volume: ReceiverVolume) {
        let hub = self.platformHub
        let status = hub.withPlatform { $0.setVolume(level: volume.level, isMuted: volume.isMuted) }
        hub.publish(ReceiverPlatform.Outcome(broadcasts: [status]), namespace: CastNamespace.receiver)
    }

    /// Launches `appID` as if another sender had: the app that ran is
    /// stopped (its senders get CLOSE) and every sender gets the new status.
    ///
    /// - Throws: ``CastEmulatorError/Code/invalidState`` for an app id the emulator does not know.
    @discardableResult
    public func launch(appID: String) throws(CastEmulatorError) -> EmulatedAppSession {
        try self.start(appID: appID, sessionID: nil)
    }

    /// Stops the running app as the receiver itself would (the user pressed
    /// stop on the remote): its senders get CLOSE, every sender the new status.
    ///
    /// - Returns: the stopped session, or `nil` if no app ran.
    @discardableResult
    public func stopApplication() -> EmulatedAppSession? {
        self.platformHub.stopApplication()
    }

    /// Moves the running app session to `destination`, as stream transfer
    /// does: the app starts there with the same session id, then stops here.
    ///
    /// - Throws: ``CastEmulatorError/Code/invalidState`` when no app runs
    ///   here, or `destination` does not know the app.
    @discardableResult
    public func moveApplication(to destination: CastEmulator) throws(CastEmulatorError) -> EmulatedAppSession {
        guard let session = self.runningApplication else {
            throw CastEmulatorError(.invalidState, "no app is running to move")
        }
        let moved = try destination.start(appID: session.application.appID, sessionID: session.sessionID)
        self.stopApplication()
        return moved
    }

    // MARK: Media

    /// Moves a manual media clock forward by `duration` and lets the player
    /// catch up at once: buffering ends, clips and items finish, and every
    /// sender of the app hears the changes. Does nothing to a system clock's time.
    public func advanceMediaClock(by duration: Duration) {
        let clock = self.configuration.mediaClock
        clock.advance(by: duration)
        self.platformHub.tickMedia(now: clock.now)
    }

    // MARK: Multizone group

    /// Adds a speaker to this emulator's group, or updates it if it is a
    /// member; senders on the multizone namespace get DEVICE_ADDED or DEVICE_UPDATED.
    public func addGroupMember(_ device: MultizoneDevice) {
        let hub = self.platformHub
        let broadcast = hub.withPlatform { $0.upsertGroupMember(device) }
        hub.publish(ReceiverPlatform.Outcome(broadcasts: [broadcast]), namespace: CastNamespace.multizone)
    }

    /// Removes a speaker from the group; senders get DEVICE_REMOVED.
    public func removeGroupMember(id: String) {
        let hub = self.platformHub
        guard let broadcast = hub.withPlatform({ $0.removeGroupMember(id: id) }) else { return }
        hub.publish(ReceiverPlatform.Outcome(broadcasts: [broadcast]), namespace: CastNamespace.multizone)
    }

    /// The groups this device belongs to, as GET_CASTING_GROUPS reports them.
    public var castingGroups: [CastingGroup] {
        get { self.platformHub.withPlatform { $0.castingGroups } }
        set { self.platformHub.withPlatform { $0.setCastingGroups(newValue) } }
    }

    /// Starts `appID` (with `sessionID`, for a moved session) and tells every sender.
    private func start(appID: String, sessionID: String?) throws(CastEmulatorError) -> EmulatedAppSession {
        let hub = self.platformHub
        let result = hub.withPlatform { platform -> (EmulatedAppSession, EmulatedAppSession?, JSONValue)? in
            guard let application = platform.applications[appID] else { return nil }
            let replaced = platform.start(application, sessionID: sessionID)
            guard let started = platform.runningApp else { return nil }
            return (started, replaced, platform.statusMessage(requestID: 0))
        }
        guard let (started, replaced, status) = result else {
            throw CastEmulatorError(.invalidState, "the emulator has no app \(appID) to launch")
        }
        hub.publish(
            ReceiverPlatform.Outcome(broadcasts: [status], stoppedTransports: replaced.map { [$0.transportID] } ?? []),
            namespace: CastNamespace.receiver
        )
        return started
    }
}
