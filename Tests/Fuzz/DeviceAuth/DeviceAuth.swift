import CastEmulator
@_spi(Receiver) import CastTransport
import Dispatch
import Foundation

/// A device's reply to the device-auth challenge, verified as a sender does:
/// the DeviceAuthMessage protobuf, the algorithms, the TLS certificate's
/// dates, the certificates' DER, the signature and the chain. Fixed for the
/// process: the emulator's test root as anchor, its TLS certificate, a nonce.
enum DeviceAuthFuzzing {
    static let identity = try? ReceiverIdentity.shared()
    static let tls = try? TLSIdentity(validity: .valid, name: "Fuzz")
    static let nonce = [UInt8](repeating: 0x42, count: 16)

    static func verify(_ bytes: [UInt8]) {
        guard let identity, let tls else { return }
        let reply = CastMessage(
            namespace: TransportNamespace.deviceAuth, sourceID: "receiver-0", destinationID: "sender-0",
            payload: .binary(bytes))
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = try? await DeviceAuthVerifier(trustAnchors: [identity.rootCertificate]).verify(
                reply: reply, nonce: Self.nonce, peerCertificateDER: tls.certificateDER, now: Date())
            done.signal()
        }
        done.wait()
    }

    /// A reply the emulator would give, as the seed of a corpus.
    static func seed() -> [UInt8]? {
        guard let identity, let tls else { return nil }
        var generator = SystemRandomNumberGenerator()
        guard let challenge = try? DeviceAuthChallenge(using: &generator).message() else { return nil }
        let responder = DeviceAuthResponder(identity: identity, tlsCertificateDER: tls.certificateDER)
        return responder.reply(to: challenge, fault: .none)?.bytes
    }
}
