@_spi(Receiver) package import CastTransport
import Foundation
import SwiftProtobuf
import _CryptoExtras

/// The receiver's side of device authentication: answers a challenge with
/// `sender_nonce`, the device certificate and intermediate, and an
/// RSASSA-PKCS1-v1_5 SHA-256 signature over `nonce ‖ TLS certificate DER`
/// (Docs/spec/castv2-control.md §2) — or misbehaves as a ``DeviceAuthFault`` says.
package struct DeviceAuthResponder {
    let identity: ReceiverIdentity
    let tlsCertificateDER: [UInt8]

    /// A responder signing with `identity` for the TLS certificate `tlsCertificateDER`.
    package init(identity: ReceiverIdentity, tlsCertificateDER: [UInt8]) {
        self.identity = identity
        self.tlsCertificateDER = tlsCertificateDER
    }

    /// The reply to `challenge`, or `nil` when there should be none (the fault
    /// says so, or the message is not a challenge).
    package func reply(to challenge: CastMessage, fault: DeviceAuthFault) -> CastMessage? {
        guard let bytes = challenge.bytes,
            let envelope = try? Cast_Channel_DeviceAuthMessage(serializedBytes: bytes),
            envelope.hasChallenge
        else { return nil }
        let payload: [UInt8]
        switch fault {
        case .noReply:
            return nil
        case .malformedReply:
            payload = Array("not a protobuf".utf8)
        case .errorReply:
            var reply = Cast_Channel_DeviceAuthMessage()
            reply.error.errorType = .internalError
            guard let serialized: [UInt8] = try? reply.serializedBytes() else { return nil }
            payload = serialized
        case .none, .wrongNonce, .emptyNonce, .wrongSigningKey:
            guard let serialized = self.response(to: envelope.challenge, fault: fault) else { return nil }
            payload = serialized
        }
        return CastMessage(
            namespace: challenge.namespace,
            sourceID: challenge.destinationID,
            destinationID: challenge.sourceID,
            payload: .binary(payload)
        )
    }

    private func response(to challenge: Cast_Channel_AuthChallenge, fault: DeviceAuthFault) -> [UInt8]? {
        // The nonce echoed is the one signed, as Chrome verifies
        // (cast_auth_util.cc `AuthenticateChallengeReply` signs
        // `nonce_response + peer_cert_der`).
        let nonce: [UInt8]
        switch fault {
        case .wrongNonce: nonce = challenge.senderNonce.map { ~$0 }
        case .emptyNonce: nonce = []
        default: nonce = Array(challenge.senderNonce)
        }
        let key: _RSA.Signing.PrivateKey
        if fault == .wrongSigningKey {
            guard let wrongKey = try? ReceiverIdentity.wrongKey.get() else { return nil }
            key = wrongKey
        } else {
            key = self.identity.deviceKey
        }
        guard let signature = try? key.signature(for: nonce + self.tlsCertificateDER, padding: .insecurePKCS1v1_5)
        else { return nil }
        var response = Cast_Channel_AuthResponse()
        response.signature = signature.rawRepresentation
        response.clientAuthCertificate = Data(self.identity.deviceCertificateDER)
        response.intermediateCertificate = [Data(self.identity.intermediateCertificateDER)]
        response.signatureAlgorithm = .rsassaPkcs1V15
        response.hashAlgorithm = .sha256
        response.senderNonce = Data(nonce)
        // Open Screen's receiver sends its credentials' `serialized_crl` as
        // the reply's `crl` (cast/receiver/channel/device_auth_namespace_handler.cc).
        if let list = self.identity.revocationList {
            response.crl = Data(list)
        }
        var reply = Cast_Channel_DeviceAuthMessage()
        reply.response = response
        return try? reply.serializedBytes()
    }
}
