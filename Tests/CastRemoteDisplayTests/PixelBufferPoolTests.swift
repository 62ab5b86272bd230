import CastRemoteDisplay
import Testing

@Suite(.timeLimit(.minutes(3))) struct PixelBufferPoolTests {
    @Test func neverHandsOutMoreThanItsCapacityAndRecyclesOnDrop() throws {
        let pool = try PixelBufferPool(width: 64, height: 48, capacity: 2)
        var first = try unwrap(pool.makeBuffer())
        let second = try unwrap(pool.makeBuffer())
        let exhausted = isNil(pool.makeBuffer())
        #expect(exhausted)
        #expect(pool.buffersInUse == 2)
        first.withUnsafeMutableBytes(ofPlane: 0) { $0[0] = 99 }
        _ = consume first
        #expect(pool.buffersInUse == 1)
        let reused = try unwrap(pool.makeBuffer())
        // The recycled buffer is the same memory, contents kept.
        let firstByte = reused.withUnsafeBytes(ofPlane: 0) { $0[0] }
        #expect(firstByte == 99)
        let exhaustedAgain = isNil(pool.makeBuffer())
        #expect(exhaustedAgain)
        _ = consume second
        _ = consume reused
        #expect(pool.buffersInUse == 0)
    }

    @Test func encodingReturnsTheBufferOnceTheFrameIsDone() throws {
        let pool = try PixelBufferPool(width: 64, height: 48, capacity: 1)
        var encoder = try VideoEncoder(
            configuration: VideoEncoderConfiguration(width: 64, height: 48, bitrate: 100_000))
        for index in 0..<10 {
            let frame = try unwrap(pool.makeBuffer(), "buffer \(index)")
            _ = try encoder.encode(frame, pts: HostTime(nanoseconds: Int64(index) * 33_000_000))
        }
        #expect(pool.buffersInUse == 0)
    }

    @Test func layoutIsAlignedI420() throws {
        let pool = try PixelBufferPool(width: 1281, height: 721)
        let buffer = try unwrap(pool.makeBuffer())
        let format = buffer.format
        let strides = (0..<3).map { buffer.bytesPerRow(ofPlane: $0) }
        let rows = (0..<3).map { buffer.rows(ofPlane: $0) }
        #expect(format == .i420)
        #expect(strides == [1_312, 672, 672])
        #expect(rows == [721, 361, 361])
    }

    @Test func copyPlaneHonoursStridesAndRejectsShortInput() throws {
        var buffer = try PixelBuffer(format: .nv12, width: 4, height: 2, bytesPerRow: [8, 6])
        try buffer.copyPlane(0, from: [1, 2, 3, 4, 0, 5, 6, 7, 8], bytesPerRow: 5)
        buffer.withUnsafeBytes(ofPlane: 0) { luma in
            #expect(Array(luma[0..<4]) == [1, 2, 3, 4])
            #expect(Array(luma[8..<12]) == [5, 6, 7, 8])
        }
        #expect(throws: CastRemoteDisplayError.self) { try buffer.copyPlane(0, from: [1, 2, 3], bytesPerRow: 4) }
        #expect(throws: CastRemoteDisplayError.self) { try buffer.copyPlane(2, from: [], bytesPerRow: 4) }
    }
}
