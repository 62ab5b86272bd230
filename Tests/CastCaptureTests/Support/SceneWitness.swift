import CastEmulator
import CastRemoteDisplay
import NIOConcurrencyHelpers

/// What the receiver made of a ``NumberedScene``'s pictures: each decoded
/// picture's number (read from its pixels), PSNR against the picture shown
/// with that number, the time from showing to decoding, and from showing to
/// the capture time the sender stamped.
final class SceneWitness: Sendable {
    struct Seen {
        var numbers: [Int] = []
        var psnr: [Double] = []
        var latencies: [Duration] = []
        var captureLags: [Duration] = []
        /// Pictures that carry no number, or one never shown, after the first that does.
        var unknown = 0
        /// Such pictures before the first numbered one: a monitor made for
        /// the cast shows its desktop until the numbered window is on it.
        var leadIn = 0

        var meanPSNR: Double { self.psnr.reduce(0, +) / Double(max(self.psnr.count, 1)) }
    }

    let scene: NumberedScene
    private let shown = NIOLockedValueBox([Int: (at: HostTime, luma: [UInt8])]())
    private let seen = NIOLockedValueBox(Seen())

    init(_ scene: NumberedScene) {
        self.scene = scene
    }

    /// Records that picture `number`, `pixels`, goes on screen now: called
    /// just before it is drawn, so the receiver can never decode a picture
    /// the witness does not know.
    func showed(_ number: Int, _ pixels: [UInt8]) {
        let luma = self.scene.luma(of: pixels)
        self.shown.withLockedValue { $0[number] = (HostTime.now, luma) }
    }

    /// The emulator's picture observer: reads the decoded picture's number.
    func observe(capturedAt: HostTime?, picture: DecodedPicture) {
        let decodedAt = HostTime.now
        guard let number = self.scene.number(inLuma: picture.planes[0]),
            let original = self.shown.withLockedValue({ $0[number] }),
            let psnr = lumaPSNR(reference: original.luma, decoded: picture)
        else {
            self.seen.withLockedValue {
                if $0.numbers.isEmpty { $0.leadIn += 1 } else { $0.unknown += 1 }
            }
            return
        }
        self.seen.withLockedValue {
            $0.numbers.append(number)
            $0.psnr.append(psnr)
            $0.latencies.append(original.at.duration(to: decodedAt))
            if let capturedAt { $0.captureLags.append(original.at.duration(to: capturedAt)) }
        }
    }

    var result: Seen { self.seen.withLockedValue { $0 } }
}
