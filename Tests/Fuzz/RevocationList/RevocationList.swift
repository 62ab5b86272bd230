import CastEmulator
@_spi(Receiver) import CastTransport
import Dispatch
import Foundation

/// A device's certificate revocation list, verified and applied as a sender
/// does. The first byte picks what the rest is:
/// - even: a whole `CrlBundle` as a device sends it (the bundle, list and
///   `TbsCrl` parsers; the signature and signer chain refuse it);
/// - odd: a `TbsCrl`, signed by the emulator's test CRL authority, so the
///   window, the serial ranges and the check of the emulator's chain run.
enum RevocationListFuzzing {
    static let issuer = try? RevocationListIssuer.shared()
    static let identity = try? ReceiverIdentity.shared()

    static func verify(_ bytes: [UInt8]) {
        guard let issuer, let identity, let mode = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let bundle: [UInt8]
        if mode & 1 == 0 {
            bundle = rest
        } else {
            guard let signed = try? issuer.bundle(signing: rest) else { return }
            bundle = signed
        }
        let chain = [identity.deviceCertificate, identity.intermediateCertificate, identity.rootCertificate]
        let done = DispatchSemaphore(value: 0)
        Task {
            if let list = try? await CastRevocationList.verified(
                bundle: bundle, trustAnchors: [issuer.rootCertificate], at: Date())
            {
                try? list.check(chain: chain, at: Date())
            }
            done.signal()
        }
        done.wait()
    }
}
