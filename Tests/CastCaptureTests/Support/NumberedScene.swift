import CYUV

/// Pictures that carry their own number: a band of 16 black-or-white
/// blocks along the top spells the frame number in binary (the last block
/// always white, so a black screen reads as no number); below it a
/// gradient and two boxes move with every frame. The receiver reads the
/// number back from the decoded picture, so each decoded frame is compared
/// with exactly the picture that was on screen, and its latency measured
/// from the moment that picture was drawn.
struct NumberedScene {
    let width: Int
    let height: Int
    static let bits = 16
    /// Set in every picture's band.
    static let marker = 1 << 15
    var bandHeight: Int { max(16, self.height / 12) }

    /// The picture numbered `number`, BGRx.
    func pixels(_ number: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: self.width * self.height * 4)
        let rowBytes = self.width * 4
        let shift = (number % 60) * 6
        // The gradient: one row, repeated.
        var row = [UInt8](repeating: 0, count: rowBytes)
        for x in 0..<self.width {
            let ramp = UInt8(truncatingIfNeeded: ((x + shift) % self.width) * 255 / self.width)
            row[x * 4] = ramp
            row[x * 4 + 1] = 128
            row[x * 4 + 2] = 255 &- ramp
        }
        pixels.withUnsafeMutableBytes { target in
            row.withUnsafeBytes { row in
                for y in self.bandHeight..<self.height {
                    UnsafeMutableRawBufferPointer(rebasing: target[(y * rowBytes)..<((y + 1) * rowBytes)])
                        .copyMemory(from: row)
                }
            }
        }
        self.fill(
            &pixels, x: shift % (self.width - 80), y: self.height / 2 - 40, width: 80, height: 80, bgr: (40, 60, 230))
        self.fill(
            &pixels, x: self.width / 3, y: self.bandHeight + shift % (self.height - self.bandHeight - 50), width: 120,
            height: 50, bgr: (30, 220, 40))
        let blockWidth = self.width / Self.bits
        for bit in 0..<Self.bits {
            let value: UInt8 = ((number | Self.marker) >> bit) & 1 == 1 ? 235 : 16
            self.fill(
                &pixels, x: bit * blockWidth, y: 0, width: blockWidth, height: self.bandHeight,
                bgr: (value, value, value))
        }
        return pixels
    }

    private func fill(_ pixels: inout [UInt8], x: Int, y: Int, width: Int, height: Int, bgr: (UInt8, UInt8, UInt8)) {
        for row in y..<min(y + height, self.height) {
            for column in x..<min(x + width, self.width) {
                let index = (row * self.width + column) * 4
                pixels[index] = bgr.0
                pixels[index + 1] = bgr.1
                pixels[index + 2] = bgr.2
            }
        }
    }

    /// The luma plane (tight rows) `pixels` become in I420, through libyuv.
    func luma(of pixels: [UInt8]) -> [UInt8] {
        var y = [UInt8](repeating: 0, count: self.width * self.height)
        var u = [UInt8](repeating: 0, count: (self.width / 2) * (self.height / 2))
        var v = u
        _ = ARGBToI420(
            pixels, Int32(self.width * 4), &y, Int32(self.width), &u, Int32(self.width / 2), &v, Int32(self.width / 2),
            Int32(self.width), Int32(self.height))
        return y
    }

    /// The number a decoded luma plane (tight rows, this scene's size)
    /// carries; `nil` when it carries none.
    func number(inLuma luma: [UInt8]) -> Int? {
        let blockWidth = self.width / Self.bits
        var number = 0
        for bit in 0..<Self.bits {
            var sum = 0
            var count = 0
            for y in 3..<(self.bandHeight - 3) {
                for x in (bit * blockWidth + 3)..<((bit + 1) * blockWidth - 3) {
                    sum += Int(luma[y * self.width + x])
                    count += 1
                }
            }
            if sum / max(count, 1) > 125 { number |= 1 << bit }
        }
        return number & Self.marker == 0 ? nil : number & ~Self.marker
    }
}
