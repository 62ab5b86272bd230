import Crypto
import Foundation
import SwiftASN1
import X509

extension Certificate {
    /// A v3 certificate for `publicKey`, signed (ECDSA with SHA-256) by `issuerKey`:
    /// the one shape every certificate the emulator makes has.
    static func issued(
        to publicKey: Certificate.PublicKey,
        subject: DistinguishedName,
        by issuer: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey,
        validFrom notBefore: Date,
        until notAfter: Date,
        extensions: Certificate.Extensions = Certificate.Extensions()
    ) throws -> Certificate {
        try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: notAfter,
            issuer: issuer,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
    }

    /// The certificate's DER encoding.
    func derBytes() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }
}
