import Testing

@testable import CastRemoteDisplay
@_spi(Receiver) @testable import CastStreaming

/// An app's own rendered pictures into session frames (issue 34): every
/// packed format, any stride, scaled with black bars, and the typed errors.
@Suite(.timeLimit(.minutes(3))) struct PackedPictureConverterTests {
    /// One pixel's red, green and blue.
    struct Colour: Equatable {
        let red: UInt8
        let green: UInt8
        let blue: UInt8
    }

    /// A `width`×`height` picture in `format`, each pixel `colour(x, y)`, rows `padding` bytes longer than needed.
    static func picture(
        _ format: PackedPixelFormat, width: Int, height: Int, padding: Int = 0, colour: (Int, Int) -> Colour
    ) -> (bytes: [UInt8], stride: Int) {
        let stride = width * format.bytesPerPixel + padding
        var bytes = [UInt8](repeating: 0xEE, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                let pixel: [UInt8]
                switch format {
                case .bgra: pixel = [c.blue, c.green, c.red, 255]
                case .rgba: pixel = [c.red, c.green, c.blue, 255]
                case .argb: pixel = [255, c.red, c.green, c.blue]
                case .rgb24: pixel = [c.red, c.green, c.blue]
                case .bgr24: pixel = [c.blue, c.green, c.red]
                }
                let start = y * stride + x * format.bytesPerPixel
                bytes.replaceSubrange(start..<(start + pixel.count), with: pixel)
            }
        }
        return (bytes, stride)
    }

    /// Quadrants of red, green, blue and white: each format's conversion is compared on it.
    static func quadrants(_ x: Int, _ y: Int, width: Int, height: Int) -> Colour {
        switch (x < width / 2, y < height / 2) {
        case (true, true): Colour(red: 255, green: 0, blue: 0)
        case (false, true): Colour(red: 0, green: 255, blue: 0)
        case (true, false): Colour(red: 0, green: 0, blue: 255)
        case (false, false): Colour(red: 255, green: 255, blue: 255)
        }
    }

    /// The three planes of `frame`, rows without stride padding.
    static func planes(_ frame: borrowing PixelBuffer) -> [[UInt8]] {
        (0..<3).map { plane in
            let stride = frame.bytesPerRow(ofPlane: plane)
            let width = plane == 0 ? frame.width : (frame.width + 1) / 2
            return frame.withUnsafeBytes(ofPlane: plane) { bytes in
                (0..<frame.rows(ofPlane: plane)).flatMap { row in bytes[(row * stride)..<(row * stride + width)] }
            }
        }
    }

    static func convert(
        _ format: PackedPixelFormat, width: Int, height: Int, padding: Int = 0, into frame: inout PixelBuffer,
        converter: inout PackedPictureConverter
    ) throws {
        let (bytes, stride) = Self.picture(format, width: width, height: height, padding: padding) {
            Self.quadrants($0, $1, width: width, height: height)
        }
        try bytes.withUnsafeBytes { raw in
            try converter.convert(
                PackedPicture(bytes: raw, width: width, height: height, bytesPerRow: stride, format: format),
                into: &frame)
        }
    }

    /// Every format of the same picture makes the same frame, whatever its
    /// stride; and that frame is the picture: BT.601 limited range, as
    /// libyuv and Chrome's mirroring encode it (red Y 82, green Y 145, blue Y 41, white Y 235).
    @Test(arguments: PackedPixelFormat.allCases)
    func everyFormatAndStrideMakesTheSameFrame(format: PackedPixelFormat) throws {
        var converter = PackedPictureConverter()
        var reference = try PixelBuffer(format: .i420, width: 64, height: 32)
        try Self.convert(.bgra, width: 64, height: 32, into: &reference, converter: &converter)
        var frame = try PixelBuffer(format: .i420, width: 64, height: 32)
        try Self.convert(format, width: 64, height: 32, padding: 12, into: &frame, converter: &converter)
        #expect(Self.planes(frame) == Self.planes(reference), "\(format)")

        let luma = Self.planes(frame)[0]
        let at = { (x: Int, y: Int) in Int(luma[y * 64 + x]) }
        #expect(abs(at(8, 8) - 82) <= 1, "red")
        #expect(abs(at(40, 8) - 145) <= 1, "green")
        #expect(abs(at(8, 24) - 41) <= 1, "blue")
        #expect(abs(at(40, 24) - 235) <= 1, "white")
    }

    /// A 4:3 picture in a 16:9 frame: scaled to the frame's height, centred,
    /// black bars left and right — every pixel of a reused buffer rewritten.
    @Test(arguments: PackedPixelFormat.allCases)
    func aPictureOfAnotherShapeIsScaledBetweenBlackBars(format: PackedPixelFormat) throws {
        var converter = PackedPictureConverter()
        var frame = try PixelBuffer(format: .i420, width: 160, height: 90)
        _ = frame.withUnsafeMutableBytes(ofPlane: 0) { $0.initializeMemory(as: UInt8.self, repeating: 200) }
        let (bytes, stride) = Self.picture(format, width: 80, height: 60) { _, _ in
            Colour(red: 255, green: 255, blue: 255)
        }
        try bytes.withUnsafeBytes { raw in
            try converter.convert(
                PackedPicture(bytes: raw, width: 80, height: 60, bytesPerRow: stride, format: format), into: &frame)
        }
        let luma = Self.planes(frame)[0]
        // 80×60 scaled to 90 rows is 120 wide, centred at x 20…139.
        for y in [0, 45, 89] {
            #expect(luma[y * 160 + 0] == 16 && luma[y * 160 + 19] == 16, "left bar, row \(y)")
            #expect(luma[y * 160 + 140] == 16 && luma[y * 160 + 159] == 16, "right bar, row \(y)")
            // libyuv's bilinear ARGB scaler truncates: full white scales to about 254, luma 233.
            #expect(abs(Int(luma[y * 160 + 80]) - 235) <= 3, "content, row \(y): \(luma[(y * 160)..<(y * 160 + 160)])")
        }
    }

    @Test func badPicturesAndFramesAreTypedErrors() throws {
        let bytes = [UInt8](repeating: 0, count: 64 * 4 * 32)
        func code(_ body: () throws -> Void) -> CastRemoteDisplayError.Code? {
            do {
                try body()
                return nil
            } catch {
                return (error as? CastRemoteDisplayError)?.code
            }
        }
        bytes.withUnsafeBytes { raw in
            #expect(
                code { _ = try PackedPicture(bytes: raw, width: 0, height: 32, format: .bgra) } == .frameFormatMismatch)
            #expect(
                code { _ = try PackedPicture(bytes: raw, width: 64, height: 32, bytesPerRow: 200, format: .bgra) }
                    == .frameFormatMismatch, "stride shorter than a row")
            #expect(
                code { _ = try PackedPicture(bytes: raw, width: 64, height: 33, format: .bgra) }
                    == .frameFormatMismatch,
                "one row too few")
            #expect(code { _ = try PackedPicture(bytes: raw, width: 64, height: 32, format: .bgra) } == nil)
            #expect(
                code { _ = try PackedPicture(bytes: raw, width: 64, height: 32, bytesPerRow: .max, format: .bgra) }
                    == .frameFormatMismatch, "a stride that overflows")
        }
        var converter = PackedPictureConverter()
        var nv12 = try PixelBuffer(format: .nv12, width: 64, height: 32)
        let refused = bytes.withUnsafeBytes { raw in
            code {
                try converter.convert(
                    try PackedPicture(bytes: raw, width: 64, height: 32, format: .rgba), into: &nv12)
            }
        }
        #expect(refused == .frameFormatMismatch)
    }
}
