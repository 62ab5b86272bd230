import CastCommon
import Foundation
import Logging

/// Device authentication on a fresh connection (Docs/spec/castv2-control.md §2).
extension CastConnection {
    /// Runs the challenge unless the policy is off; applies the policy to a failure.
    func authenticateAsConfigured(_ connected: ConnectedChannel) async throws(CastTransportError) {
        let policy = self.configuration.deviceAuthentication
        guard policy.requirement != .off else { return }
        let device: VerifiedDevice
        do {
            device = try await self.authenticate(connected, policy: policy)
        } catch {
            try self.throwIfEnding()
            self.logger.warning("device authentication failed", metadata: ["cast.reason": "\(error)"])
            switch policy.requirement {
            case .required:
                self.end(error)
                throw error
            case .optional, .off:
                self.recordAuthenticationFailure(error)
                return
            }
        }
        try self.throwIfEnding()
        self.markAuthenticated(device)
    }

    /// Sends a challenge and verifies the reply.
    private func authenticate(
        _ connected: ConnectedChannel,
        policy: DeviceAuthenticationPolicy
    ) async throws(CastTransportError) -> VerifiedDevice {
        var generator = SystemRandomNumberGenerator()
        let challenge = DeviceAuthChallenge(using: &generator)
        let replies = self.messages(
            namespace: TransportNamespace.deviceAuth,
            from: CastEndpointID.receiverPlatform
        )
        try self.send(try challenge.message())
        switch await firstElement(of: replies, within: policy.timeout, on: self.configuration.clock) {
        case .element(let reply):
            return try await DeviceAuthVerifier(policy: policy)
                .verify(
                    reply: reply,
                    nonce: challenge.nonce,
                    peerCertificateDER: connected.peerCertificateDER,
                    now: Date()
                )
        case .finished:
            try self.throwIfEnding()
            throw CastTransportError(.authenticationTimedOut, "the device-auth wait was cancelled")
        case .timedOut:
            throw CastTransportError(.authenticationTimedOut, "no device-auth reply within \(policy.timeout)")
        }
    }
}
