import Foundation
public import X509

extension DeviceAuthenticationPolicy {
    /// Every certificate in the PEM file at `path`: roots a user adds to
    /// ``trustAnchors`` or ``revocationTrustAnchors`` for their own test
    /// devices or a receiver emulator, whose chains are not Google's.
    ///
    /// Each `CERTIFICATE` block's base64 is read whatever its line width
    /// (Open Screen's test chains use 75 columns, which swift-asn1's strict
    /// `PEMDocument` refuses; OpenSSL reads them); words between blocks and
    /// blocks of other kinds (a key kept in the same file) are skipped.
    ///
    /// - Throws: ``CastTransportError/Code/invalidCertificateFile`` when the
    ///   file cannot be read, holds no certificate, or holds one that is cut
    ///   short or does not parse.
    public static func certificates(inPEMFile path: String) throws(CastTransportError) -> [Certificate] {
        // Read through a handle: FoundationEssentials' whole-file reads
        // (`String(contentsOfFile:)`, `FileManager.contents(atPath:)`) leak
        // their 4 KiB buffer for an empty file (swift 6.3; the fuzz target
        // found it under LeakSanitizer). Base64 and the markers are ASCII.
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CastTransportError(.invalidCertificateFile, "cannot read \(path)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw CastTransportError(.invalidCertificateFile, "cannot read \(path)", cause: error)
        }
        let text = String(decoding: data, as: UTF8.self)
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var certificates: [Certificate] = []
        for block in text.components(separatedBy: begin).dropFirst() {
            guard let body = block.range(of: end).map({ block[..<$0.lowerBound] }) else {
                throw CastTransportError(.invalidCertificateFile, "\(path): a certificate has no END line")
            }
            do {
                guard let der = Data(base64Encoded: String(body.filter { !$0.isWhitespace })) else {
                    throw CastTransportError(.invalidCertificateFile, "its base64 does not decode")
                }
                certificates.append(try Certificate(derEncoded: Array(der)))
            } catch {
                throw CastTransportError(
                    .invalidCertificateFile, "\(path): a certificate does not parse", cause: error)
            }
        }
        guard !certificates.isEmpty else {
            throw CastTransportError(.invalidCertificateFile, "\(path) holds no PEM certificate")
        }
        return certificates
    }
}
