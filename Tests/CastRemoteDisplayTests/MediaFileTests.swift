import CastRemoteDisplay
import CastTestSupport
import Foundation
import Testing

/// The Y4M and WAV readers `cast screen` streams from, fed bad files.
@Suite(.timeLimit(.minutes(3))) struct MediaFileTests {
    /// A size that overflowed `width × height × 3 / 2` before the header was bounded.
    @Test(arguments: [
        "YUV4MPEG2 W9223372036854775807 H9223372036854775807 C420", "YUV4MPEG2 W4098 H2160", "YUV4MPEG2 W0 H0",
        "YUV4MPEG2 W641 H480", "YUV4MPEG2 W640 H480 C444", "RIFF", "",
    ])
    func aBadY4MHeaderIsATypedError(line: String) {
        let error = #expect(throws: CastRemoteDisplayError.self) { try Y4MFile.Header(line: line) }
        #expect(error?.code == .invalidFile)
    }

    @Test func aGoodY4MHeaderIsRead() throws {
        let header = try Y4MFile.Header(line: "YUV4MPEG2 W1280 H720 F30000:1001 Ip A1:1 C420jpeg")
        #expect(header.width == 1_280 && header.height == 720)
        #expect(abs(header.frameRate - 29.97) < 0.01)
        #expect(header.frameByteCount == 1_280 * 720 * 3 / 2)
    }

    @Test func aBadWAVIsATypedError() {
        let truncated: [UInt8] =
            Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WAVEfmt ".utf8) + [0xFF, 0xFF, 0xFF, 0x7F]
        for bytes in [[], Array("RIFF1234WAVE".utf8), truncated] {
            let error = #expect(throws: CastRemoteDisplayError.self) { try WAVFile(bytes: bytes) }
            #expect(error?.code == .invalidFile)
        }
    }
}
