public import CastStreaming

/// A synthetic moving picture for demos, tests and benchmarks: diagonal
/// luma bars and chroma gradients that scroll, plus a bright square that
/// crosses the frame, so every frame differs from the one before the way
/// real video does (motion, not noise).
public struct TestPattern: Sendable {
    /// Pixels the bars move per frame.
    public var speed: Int

    /// Creates a pattern.
    public init(speed: Int = 4) {
        self.speed = speed
    }

    /// Draws frame number `index` into `buffer` (any format, size and stride).
    public func render(frame index: Int, into buffer: inout PixelBuffer) {
        let width = buffer.width
        let height = buffer.height
        let shift = index * self.speed
        let square = max(height / 8, 2)
        let squareX = (index * self.speed * 2) % max(width - square, 1)
        let squareY = (height - square) / 2
        let lumaStride = buffer.bytesPerRow(ofPlane: 0)
        buffer.withUnsafeMutableBytes(ofPlane: 0) { luma in
            for y in 0..<height {
                let row = y * lumaStride
                let inSquareRow = y >= squareY && y < squareY + square
                for x in 0..<width {
                    let bar = UInt8(truncatingIfNeeded: ((x + y + shift) >> 2) & 0x7F) + 48
                    luma[row + x] = inSquareRow && x >= squareX && x < squareX + square ? 235 : bar
                }
            }
        }
        let chromaRows = buffer.rows(ofPlane: 1)
        let chromaWidth = (width + 1) / 2
        switch buffer.format {
        case .i420:
            for plane in 1...2 {
                let stride = buffer.bytesPerRow(ofPlane: plane)
                buffer.withUnsafeMutableBytes(ofPlane: plane) { chroma in
                    for y in 0..<chromaRows {
                        for x in 0..<chromaWidth {
                            chroma[y * stride + x] = Self.chroma(plane: plane, x: x, y: y, shift: shift)
                        }
                    }
                }
            }
        case .nv12:
            let stride = buffer.bytesPerRow(ofPlane: 1)
            buffer.withUnsafeMutableBytes(ofPlane: 1) { chroma in
                for y in 0..<chromaRows {
                    for x in 0..<chromaWidth {
                        chroma[y * stride + 2 * x] = Self.chroma(plane: 1, x: x, y: y, shift: shift)
                        chroma[y * stride + 2 * x + 1] = Self.chroma(plane: 2, x: x, y: y, shift: shift)
                    }
                }
            }
        }
    }

    private static func chroma(plane: Int, x: Int, y: Int, shift: Int) -> UInt8 {
        let position = plane == 1 ? x + shift / 2 : y + shift / 3
        return UInt8(truncatingIfNeeded: 64 + (position & 0x7F))
    }
}
