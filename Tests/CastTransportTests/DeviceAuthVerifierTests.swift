import Foundation
import SwiftProtobuf
import Testing
import X509

@testable import CastEmulator
@_spi(Receiver) @testable import CastTransport

/// The verifier's checks that a well-behaved emulator cannot provoke, on
/// replies built by hand from the emulator's identity.
@Suite(.timeLimit(.minutes(3))) struct DeviceAuthVerifierTests {
    let identity: ReceiverIdentity
    let peerCertificateDER: [UInt8]
    let nonce = [UInt8](repeating: 0x5A, count: 16)

    init() throws {
        self.identity = try ReceiverIdentity.shared()
        self.peerCertificateDER = try TLSIdentity(validity: .valid, name: "verifier-test").certificateDER
    }

    func reply(_ edit: (inout Cast_Channel_AuthResponse) -> Void = { _ in }) throws -> CastMessage {
        let responder = DeviceAuthResponder(identity: self.identity, tlsCertificateDER: self.peerCertificateDER)
        var challenge = Cast_Channel_DeviceAuthMessage()
        challenge.challenge.senderNonce = Data(self.nonce)
        challenge.challenge.hashAlgorithm = .sha256
        let request = CastMessage(
            namespace: TransportNamespace.deviceAuth,
            sourceID: "sender-0",
            destinationID: "receiver-0",
            payload: .binary(try challenge.serializedBytes())
        )
        let good = try #require(responder.reply(to: request, fault: .none))
        var envelope = try Cast_Channel_DeviceAuthMessage(serializedBytes: try #require(good.bytes))
        edit(&envelope.response)
        return CastMessage(
            namespace: good.namespace,
            sourceID: good.sourceID,
            destinationID: good.destinationID,
            payload: .binary(try envelope.serializedBytes())
        )
    }

    func verify(_ reply: CastMessage, peer: [UInt8]? = nil) async -> CastTransportError.Code? {
        await transportErrorCode {
            try await DeviceAuthVerifier(trustAnchors: [self.identity.rootCertificate]).verify(
                reply: reply,
                nonce: self.nonce,
                peerCertificateDER: peer ?? self.peerCertificateDER,
                now: Date()
            )
        }
    }

    @Test func theResponderReplyVerifies() async throws {
        #expect(await self.verify(try self.reply()) == nil)
    }

    @Test func pssSignaturesAreNotSupported() async throws {
        #expect(
            await self.verify(try self.reply { $0.signatureAlgorithm = .rsassaPss }) == .unsupportedSignatureAlgorithm)
    }

    @Test func aDeviceCertificateThatDoesNotParseIsRejected() async throws {
        #expect(
            await self.verify(try self.reply { $0.clientAuthCertificate = Data([0x30, 0x03, 0x01]) })
                == .deviceCertificateInvalid)
    }

    @Test func aPeerCertificateThatDoesNotParseIsRejected() async throws {
        #expect(await self.verify(try self.reply(), peer: [0x30, 0x00]) == .peerCertificateInvalid)
    }

    @Test func aSignatureOverAnotherCertificateIsInvalid() async throws {
        let other = try TLSIdentity(validity: .valid, name: "someone-else").certificateDER
        #expect(await self.verify(try self.reply(), peer: other) == .signatureInvalid)
    }

    @Test func textRepliesAreMalformed() async {
        let text = CastMessage(
            namespace: TransportNamespace.deviceAuth,
            sourceID: "receiver-0",
            destinationID: "sender-0",
            payload: .string("{}")
        )
        #expect(await self.verify(text) == .malformedAuthResponse)
    }
}
