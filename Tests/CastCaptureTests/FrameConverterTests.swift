import CYUV
import CastRemoteDisplay
import Testing

@testable import CastCapture

/// Captured pictures into I420 frames: byte for byte what libyuv gives
/// when called directly, bars black, nothing outside the picture touched.
@Suite(.timeLimit(.minutes(3))) struct FrameConverterTests {
    /// A picture with detail in both directions, made cheaply (a row
    /// pattern copied down the picture, shifted row by row): a per-pixel loop
    /// at 1080p takes seconds of a sanitizer build's CPU.
    private func picture(width: Int, height: Int) -> [UInt8] {
        let rowBytes = width * 4
        var pattern = [UInt8](repeating: 0, count: rowBytes + 1_024)
        for index in 0..<pattern.count { pattern[index] = UInt8(truncatingIfNeeded: index &* 37 &+ index / 7) }
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        pixels.withUnsafeMutableBytes { target in
            pattern.withUnsafeBytes { pattern in
                for row in 0..<height {
                    let shift = (row * 4) % 1_024
                    UnsafeMutableRawBufferPointer(rebasing: target[(row * rowBytes)..<((row + 1) * rowBytes)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: pattern[shift..<(shift + rowBytes)]))
                }
            }
        }
        return pixels
    }

    /// libyuv alone: scale (if needed) then convert, into tight planes.
    private func reference(_ pixels: [UInt8], width: Int, height: Int, to target: (Int, Int)) -> [UInt8] {
        var scaled = pixels
        if (width, height) != target {
            scaled = [UInt8](repeating: 0, count: target.0 * target.1 * 4)
            _ = ARGBScale(
                pixels, Int32(width * 4), Int32(width), Int32(height), &scaled, Int32(target.0 * 4), Int32(target.0),
                Int32(target.1), kFilterBilinear)
        }
        var y = [UInt8](repeating: 0, count: target.0 * target.1)
        var u = [UInt8](repeating: 0, count: target.0 * target.1 / 4)
        var v = u
        _ = ARGBToI420(
            scaled, Int32(target.0 * 4), &y, Int32(target.0), &u, Int32(target.0 / 2), &v, Int32(target.0 / 2),
            Int32(target.0), Int32(target.1))
        return y
    }

    private func convert(_ pixels: [UInt8], width: Int, height: Int, into frame: inout PixelBuffer) {
        var pixels = pixels
        let converter = FrameConverter()
        pixels.withUnsafeMutableBytes { bytes in
            converter.convert(
                CapturedImage(
                    base: bytes.baseAddress, width: width, height: height, bytesPerRow: width * 4, order: .bgrx),
                into: &frame)
        }
    }

    private func luma(_ frame: borrowing PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        frame.withUnsafeBytes(ofPlane: 0) { plane in
            var rows: [UInt8] = []
            for row in y..<(y + height) {
                let start = row * frame.bytesPerRow(ofPlane: 0) + x
                rows += plane[start..<(start + width)]
            }
            return rows
        }
    }

    @Test func aFullHDPictureIsScaledTo720pAsLibyuvDoesIt() throws {
        let pixels = self.picture(width: 1_920, height: 1_080)
        let pool = try PixelBufferPool(width: 1_280, height: 720, capacity: 1)
        guard var frame = pool.makeBuffer() else {
            Issue.record("the pool gave no buffer")
            return
        }
        self.convert(pixels, width: 1_920, height: 1_080, into: &frame)
        #expect(
            self.luma(frame, x: 0, y: 0, width: 1_280, height: 720)
                == self.reference(pixels, width: 1_920, height: 1_080, to: (1_280, 720)))
    }

    @Test func aPictureOfTheFrameSizeIsConvertedWithoutScaling() throws {
        let pixels = self.picture(width: 640, height: 360)
        var frame = try PixelBuffer(format: .i420, width: 640, height: 360)
        self.convert(pixels, width: 640, height: 360, into: &frame)
        #expect(
            self.luma(frame, x: 0, y: 0, width: 640, height: 360)
                == self.reference(pixels, width: 640, height: 360, to: (640, 360)))
    }

    @Test func aPictureOfAnotherShapeIsPillarboxedWithBlackBars() throws {
        let pixels = self.picture(width: 640, height: 480)
        var frame = try PixelBuffer(format: .i420, width: 1_280, height: 720)
        // A stale frame: the bars must be painted, not inherited.
        frame.withUnsafeMutableBytes(ofPlane: 0) { _ = $0.initializeMemory(as: UInt8.self, repeating: 99) }
        self.convert(pixels, width: 640, height: 480, into: &frame)
        #expect(
            self.luma(frame, x: 160, y: 0, width: 960, height: 720)
                == self.reference(pixels, width: 640, height: 480, to: (960, 720)))
        #expect(self.luma(frame, x: 0, y: 0, width: 160, height: 720).allSatisfy { $0 == 16 })
        #expect(self.luma(frame, x: 1_120, y: 0, width: 160, height: 720).allSatisfy { $0 == 16 })
    }

    @Test func anEmptyPictureGivesABlackFrame() throws {
        var frame = try PixelBuffer(format: .i420, width: 64, height: 36)
        frame.withUnsafeMutableBytes(ofPlane: 0) { _ = $0.initializeMemory(as: UInt8.self, repeating: 99) }
        let converter = FrameConverter()
        converter.convert(CapturedImage(base: nil, width: 0, height: 0, bytesPerRow: 0, order: .bgrx), into: &frame)
        #expect(self.luma(frame, x: 0, y: 0, width: 64, height: 36).allSatisfy { $0 == 16 })
    }

    @Test func resolutionsToOfferKeepTheSourceShape() {
        typealias Resolution = RemoteDisplayConfiguration.Resolution
        let expected: [(source: (Int, Int), offered: (Int, Int))] = [
            ((2_560, 1_600), (1_728, 1_080)),
            ((801, 601), (800, 600)),
            // A small window is offered at the smallest size a session takes, its shape kept…
            ((160, 120), (320, 240)),
            ((100, 300), (320, 960)),
            // …and a strip too long for both bounds is held within them (the capture letterboxes it).
            ((4_000, 50), (1_920, 240)),
        ]
        for (source, offered) in expected {
            #expect(
                Resolution(width: source.0, height: source.1).scaledToFit(within: .hd1080)
                    == Resolution(width: offered.0, height: offered.1))
        }
        for size in [(1, 1), (3, 4_001), (7_680, 4_320), (321, 241)] {
            let offered = Resolution(width: size.0, height: size.1).scaledToFit(within: .hd1080)
            #expect((320...1_920).contains(offered.width) && (240...1_080).contains(offered.height), "\(offered)")
            #expect(offered.width % 2 == 0 && offered.height % 2 == 0, "\(offered)")
        }
    }
}
