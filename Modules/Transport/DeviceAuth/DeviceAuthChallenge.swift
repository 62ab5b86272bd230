import CastCommon
import Foundation
import SwiftProtobuf

/// A device-auth challenge: a fresh 16-byte nonce, SHA-256, RSASSA-PKCS1-v1_5
/// (what Chrome and Open Screen send), as a binary message from `sender-0`
/// to `receiver-0`.
package struct DeviceAuthChallenge {
    /// The nonce the reply must echo and sign.
    let nonce: [UInt8]

    /// Creates a challenge with a nonce from `generator`.
    package init(using generator: inout some RandomNumberGenerator) {
        self.nonce = (0..<TransportConstants.nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &generator)
        }
    }

    /// The challenge message.
    package func message() throws(CastTransportError) -> CastMessage {
        var challenge = Cast_Channel_AuthChallenge()
        challenge.senderNonce = Data(self.nonce)
        challenge.hashAlgorithm = .sha256
        challenge.signatureAlgorithm = .rsassaPkcs1V15
        var envelope = Cast_Channel_DeviceAuthMessage()
        envelope.challenge = challenge
        let bytes: [UInt8]
        do {
            bytes = try envelope.serializedBytes()
        } catch {
            throw CastTransportError(.invalidMessage, "the device-auth challenge does not serialize", cause: error)
        }
        return CastMessage(
            namespace: TransportNamespace.deviceAuth,
            sourceID: CastEndpointID.senderPlatform,
            destinationID: CastEndpointID.receiverPlatform,
            payload: .binary(bytes)
        )
    }
}
