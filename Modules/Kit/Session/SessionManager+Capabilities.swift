import CastChannels
import CastDiscovery
import CastTransport

extension SessionManager {
    /// Whether `device` can run Remote Display: it has video out, and its
    /// receiver reports the mirroring app (`0F5096E8`) available. Asks over
    /// the current session's connection when it is on `device`, and over a
    /// short-lived connection otherwise; any failure answers `false`.
    public func isRemoteDisplaySupported(on device: CastDevice) async -> Bool {
        guard device.capabilities.contains(.videoOut) else { return false }
        if let session = self.currentSession, session.device.id == device.id, session.state == .connected {
            let answers = try? await session.receiver.availability(of: [CastApplicationID.mirroring])
            return answers?[CastApplicationID.mirroring] == .available
        }
        let probe = ReceiverChannel(requestTimeout: self.options.requestTimeout)
        for address in device.addresses {
            let connection = CastConnection(
                host: address.description, port: device.port, configuration: self.options.connection,
                eventLoopGroup: self.eventLoopGroup, logger: self.options.logger)
            defer { probe.detach() }
            do {
                try await connection.connect()
                try await connection.openVirtualConnection(to: TransportConstants.receiverPlatformID)
                probe.attach(
                    to: connection, destinationID: TransportConstants.receiverPlatformID, logger: self.options.logger)
                let answers = try await probe.availability(of: [CastApplicationID.mirroring])
                await connection.close()
                return answers[CastApplicationID.mirroring] == .available
            } catch {
                await connection.close()
            }
        }
        return false
    }
}
