import CastChannels
import CastCommon
public import CastDiscovery
import CastTransport

/// What a device can run, asked before (or without) starting a session.
extension SessionManager {
    /// Whether `device` can run `appID` (the configured receiver app by
    /// default), asked with GET_APP_AVAILABILITY over the current session's
    /// connection when it is on `device`, and over a short-lived connection
    /// otherwise. mDNS does not say which apps a device runs, so this is how
    /// a picker narrows discovered devices to those that can run the app.
    ///
    /// - Returns: the receiver's answer; `AppAvailability.unknown` when it
    ///   cannot be asked or does not answer.
    public func availability(ofApplication appID: String? = nil, on device: CastDevice) async -> AppAvailability {
        let appID = appID ?? self.options.receiverApplicationID
        if let session = self.currentSession, session.device.id == device.id, session.state == .connected {
            return (try? await session.receiver.availability(of: [appID]))?[appID] ?? .unknown
        }
        let probe = ReceiverChannel(requestTimeout: self.options.requestTimeout, clock: self.options.clock)
        guard let link = try? await self.link(to: device, receiver: probe) else { return .unknown }
        let answer = (try? await probe.availability(of: [appID]))?[appID] ?? .unknown
        await link.close()
        return answer
    }

    /// Whether `device` can run Remote Display with `applicationID` — pass
    /// the session's `RemoteDisplayConfiguration.applicationID`; screen
    /// mirroring (`0F5096E8`) by default: it has video out, and its receiver
    /// reports the app available. Chrome asks the same two things before it
    /// picks the app (cast_media_source.cc `ForCastStreaming`: video and
    /// audio out; `CastActivityManager::ChooseAppId`).
    public func isRemoteDisplaySupported(
        on device: CastDevice, applicationID: String = CastApplicationID.mirroring
    ) async -> Bool {
        guard device.capabilities.contains(.videoOut) else { return false }
        return await self.availability(ofApplication: applicationID, on: device) == .available
    }
}
