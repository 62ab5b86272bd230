import CastTransport
import Foundation

/// A PEM file of trust anchors (`--trust-anchor`), read as the SDK reads
/// one: the bytes written to a file of this process's own, then every
/// certificate block decoded and parsed.
func fuzzTrustAnchors(_ bytes: [UInt8]) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-anchors-\(getpid()).pem").path
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
    _ = try? DeviceAuthenticationPolicy.certificates(inPEMFile: path)
}
