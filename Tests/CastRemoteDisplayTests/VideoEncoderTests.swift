import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Testing

@Suite(.timeLimit(.minutes(10))) struct VideoEncoderTests {
    static let frameInterval: Int64 = 33_333_333

    /// A smaller size takes effect at the next frame, as a key frame the
    /// decoder shows at that size; growing past the first size is refused.
    @Test(arguments: [VideoCodec.vp8, .vp9, .h264, .av1])
    func theSizeChangesWithoutANewEncoder(codec: VideoCodec) throws {
        var encoder = try VideoEncoder(
            configuration: VideoEncoderConfiguration(codec: codec, width: 640, height: 360, bitrate: 1_000_000))
        let decoder = makeVideoDecoder(for: codec)
        let pattern = TestPattern()
        let large = try PixelBufferPool(width: 640, height: 360)
        let small = try PixelBufferPool(width: 320, height: 180)
        var sizes: [Int] = []
        var keyFrames: [Bool] = []
        for index in 0..<6 {
            let pool = index < 3 || index == 5 ? large : small
            if index == 3 { try encoder.setResolution(width: 320, height: 180) }
            if index == 5 { try encoder.setResolution(width: 640, height: 360) }
            var frame = try unwrap(pool.makeBuffer())
            pattern.render(frame: index, into: &frame)
            let encoded = try encoder.encode(frame, pts: Self.pts(index))
            keyFrames.append(encoded.isKeyFrame)
            sizes.append(try unwrap(decoder.decode(encoded.bytes)).width)
        }
        #expect(sizes == [640, 640, 640, 320, 320, 640])
        #expect(keyFrames == [true, false, false, true, false, true])
        #expect(throws: CastRemoteDisplayError.self) { try encoder.setResolution(width: 1_280, height: 720) }
        #expect(throws: CastRemoteDisplayError.self) { try encoder.setResolution(width: 321, height: 180) }
        #expect(encoder.configuration.width == 640)
    }

    static func pts(_ index: Int) -> HostTime {
        HostTime(nanoseconds: 1_000_000_000 + Int64(index) * Self.frameInterval)
    }

    /// A moving 1280×720 pattern at 4 Mbit/s decodes to a faithful picture.
    /// Measured: 51.1 dB mean and 47.4 dB worst-frame luma PSNR (speed 6, one
    /// thread, libvpx 1.12); the floors leave about 5 dB of margin.
    @Test func movingPatternAt4MbitsKeepsItsQuality() async throws {
        struct Frame: Sendable {
            let isKeyFrame: Bool
            let pts: HostTime
            let duration: Duration
            let decodedSize: (width: Int, height: Int)?
            let psnr: Double?
        }
        // Seconds of encoding in a debug build: on a thread of its own, off the cooperative pool.
        let frames = try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(width: 1280, height: 720, bitrate: 4_000_000))
            let pool = try PixelBufferPool(width: 1280, height: 720)
            let decoder = VPXDecoder()
            let pattern = TestPattern()
            return try (0..<30).map { index in
                var frame = try unwrap(pool.makeBuffer())
                pattern.render(frame: index, into: &frame)
                let encoded = try encoder.encode(frame, pts: Self.pts(index))
                var decodedSize: (width: Int, height: Int)?
                var psnr: Double?
                if let picture = decoder.decode(encoded.bytes) {
                    decodedSize = (picture.width, picture.height)
                    psnr = lumaPSNR(frame, picture)
                }
                return Frame(
                    isKeyFrame: encoded.isKeyFrame, pts: encoded.pts, duration: encoded.duration,
                    decodedSize: decodedSize, psnr: psnr)
            }
        }
        for (index, frame) in frames.enumerated() {
            #expect(frame.isKeyFrame == (index == 0))
            #expect(frame.pts == Self.pts(index))
            #expect(frame.duration == .microseconds(33_333))
            #expect(frame.decodedSize?.width == 1280 && frame.decodedSize?.height == 720)
        }
        let psnrs = frames.compactMap(\.psnr)
        try #require(psnrs.count == frames.count)
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        #expect(mean > 46, "mean luma PSNR \(mean) dB")
        #expect(psnrs.min()! > 42, "worst frame \(psnrs.min()!) dB")
    }

    /// VP9 (realtime, tuned for screen content): one key frame, then delta
    /// frames that each decode with libvpx's VP9 decoder to a faithful picture.
    /// Measured at 640×360, 2 Mbit/s: 50.8 dB mean, 46.7 dB worst (libvpx 1.12);
    /// the floors leave 4–5 dB. The small size keeps a sanitizer build light.
    @Test func vp9EncodesAMovingPatternThatDecodesFrameByFrame() async throws {
        let results = try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(codec: .vp9, width: 640, height: 360, bitrate: 2_000_000))
            let pool = try PixelBufferPool(width: 640, height: 360)
            let decoder = VPXDecoder(codec: .vp9)
            let vp8Decoder = VPXDecoder(codec: .vp8)
            let pattern = TestPattern()
            return try (0..<30).map { index -> (key: Bool, psnr: Double?, readAsVP8: Bool) in
                var frame = try unwrap(pool.makeBuffer())
                pattern.render(frame: index, into: &frame)
                let encoded = try encoder.encode(frame, pts: Self.pts(index))
                let psnr = decoder.decode(encoded.bytes).map { lumaPSNR(frame, $0) }
                return (encoded.isKeyFrame, psnr, index == 0 && vp8Decoder.decode(encoded.bytes) != nil)
            }
        }
        #expect(results.map(\.key) == [true] + Array(repeating: false, count: 29))
        let psnrs = results.compactMap(\.psnr)
        try #require(psnrs.count == results.count)
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        print("VP9 360p 2 Mbit/s: mean \(mean) dB, worst \(psnrs.min()!) dB")
        #expect(mean > 45, "mean luma PSNR \(mean) dB")
        #expect(psnrs.min()! > 42, "worst frame \(psnrs.min()!) dB")
        // It really is VP9: the VP8 decoder cannot read its key frame.
        #expect(results[0].readAsVP8 == false)
    }

    @Test func keyFramesComeOnlyOnDemand() async throws {
        let (keyFlags, tagBitMatches, decodedFromSecondKey) = try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(width: 320, height: 240, bitrate: 500_000))
            var frame = try PixelBuffer(format: .i420, width: 320, height: 240)
            var keyFlags: [Bool] = []
            var tagBitMatches: [Bool] = []
            var streamFromSecondKey: [[UInt8]] = []
            for index in 0..<80 {
                if index == 50 { encoder.requestKeyFrame() }
                TestPattern().render(frame: index, into: &frame)
                let encoded = try encoder.encode(frame, pts: Self.pts(index))
                keyFlags.append(encoded.isKeyFrame)
                // The VP8 frame tag's bit 0 is 0 for key frames (RFC 6386 §9.1).
                tagBitMatches.append((encoded.bytes[0] & 1 == 0) == encoded.isKeyFrame)
                if index >= 50 { streamFromSecondKey.append(encoded.bytes) }
            }
            // A receiver that joins at the requested key frame decodes everything after it.
            let decoder = VPXDecoder()
            return (keyFlags, tagBitMatches, streamFromSecondKey.map { decoder.decode($0) != nil })
        }
        #expect(keyFlags.indices.filter { keyFlags[$0] } == [0, 50])
        #expect(tagBitMatches.allSatisfy { $0 })
        #expect(decodedFromSecondKey.count == 30 && decodedFromSecondKey.allSatisfy { $0 })
    }

    @Test func bitrateChangeTakesEffectWithinASecond() async throws {
        let (high, low, configured) = try await onOwnThread {
            var encoder = try VideoEncoder(
                configuration: VideoEncoderConfiguration(width: 640, height: 360, bitrate: 1_500_000))
            var frame = try PixelBuffer(format: .i420, width: 640, height: 360)
            func averageBytes(_ range: Range<Int>) throws -> Double {
                var total = 0
                for index in range {
                    TestPattern(speed: 7).render(frame: index, into: &frame)
                    total += try encoder.encode(frame, pts: Self.pts(index)).byteCount
                }
                return Double(total) / Double(range.count)
            }
            let high = try averageBytes(0..<60)
            try encoder.setBitrate(400_000)
            _ = try averageBytes(60..<75)  // the first half second adapts
            let low = try averageBytes(75..<90)  // the second half second is at the new rate
            return (high, low, encoder.configuration.bitrate)
        }
        #expect(configured == 400_000)
        // 1.5 Mbit/s at 30 fps is 6 250 bytes a frame, 400 kbit/s is 1 667.
        // Measured: 5 662 before, 2 012 in the second half second after.
        #expect(high > 4_500, "high-rate frames average \(high) bytes")
        #expect(low < 2_600, "low-rate frames average \(low) bytes")
        #expect(low < high / 2)
    }

    @Test func nv12AndI420OfTheSamePictureDecodeTheSame() async throws {
        let frames = try await onOwnThread {
            let configuration = VideoEncoderConfiguration(width: 322, height: 182, bitrate: 1_000_000)
            var i420Encoder = try VideoEncoder(configuration: configuration)
            var nv12Encoder = try VideoEncoder(configuration: configuration)
            // Odd strides on purpose: any stride is accepted.
            var i420 = try PixelBuffer(format: .i420, width: 322, height: 182, bytesPerRow: [333, 177, 171])
            var nv12 = try PixelBuffer(format: .nv12, width: 322, height: 182, bytesPerRow: [350, 327])
            let i420Decoder = VPXDecoder()
            let nv12Decoder = VPXDecoder()
            var frames: [(same: Bool, psnr: Double)?] = []
            for index in 0..<5 {
                TestPattern().render(frame: index, into: &i420)
                TestPattern().render(frame: index, into: &nv12)
                let fromI420 = try i420Encoder.encode(i420, pts: Self.pts(index)).bytes
                let fromNV12 = try nv12Encoder.encode(nv12, pts: Self.pts(index)).bytes
                guard let pictureA = i420Decoder.decode(fromI420), let pictureB = nv12Decoder.decode(fromNV12) else {
                    frames.append(nil)
                    continue
                }
                frames.append((pictureA == pictureB, lumaPSNR(i420, pictureA)))
            }
            return frames
        }
        for (index, frame) in frames.enumerated() {
            let decoded = try #require(frame, "frame \(index) did not decode")
            #expect(decoded.same, "frame \(index): NV12 and I420 decode differently")
            #expect(decoded.psnr > 30)
        }
    }

    @Test func wrongSizeAndBadSettingsAreTypedErrors() throws {
        var encoder = try VideoEncoder(configuration: VideoEncoderConfiguration(width: 320, height: 240))
        let wrong = try PixelBuffer(format: .i420, width: 640, height: 480)
        do {
            _ = try encoder.encode(wrong, pts: Self.pts(0))
        } catch {
            #expect(error.code == .frameFormatMismatch)
        }
        for bad in [
            VideoEncoderConfiguration(width: 0, height: 240),
            VideoEncoderConfiguration(width: 320, height: 5_000),
            VideoEncoderConfiguration(width: 320, height: 240, frameRate: 0),
            VideoEncoderConfiguration(width: 320, height: 240, bitrate: 1),
            VideoEncoderConfiguration(width: 320, height: 240, threadCount: 0),
            VideoEncoderConfiguration(width: 320, height: 240, speed: 99),
        ] {
            do {
                _ = try VideoEncoder(configuration: bad)
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.code == .invalidConfiguration)
            }
        }
        do {
            try encoder.setBitrate(-5)
            Issue.record("accepted a negative bitrate")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(encoder.configuration.bitrate == 4_000_000)
        }
        #expect(throws: CastRemoteDisplayError.self) {
            _ = try PixelBuffer(format: .nv12, width: 100, height: 100, bytesPerRow: [100, 99])
        }
    }

    /// Encoded frames come from a bounded pool: with 128 still held, the next
    /// encode fails cleanly, and once frames are released the next is a key frame.
    @Test func encodedFramesAreBoundedAndRecycled() throws {
        var encoder = try VideoEncoder(
            configuration: VideoEncoderConfiguration(width: 64, height: 64, bitrate: 100_000))
        let frame = try PixelBuffer(format: .i420, width: 64, height: 64)
        var held: [[UInt8]] = []
        try withHeldFrames(128, encoder: &encoder, frame: frame, held: &held)
        #expect(held.count == 128)
        let next = try encoder.encode(frame, pts: Self.pts(200)).isKeyFrame
        #expect(next)
    }

    /// Holds `count` encoded frames alive (recursively, since they are
    /// noncopyable and cannot go in an array), then encodes one more.
    private func withHeldFrames(
        _ count: Int,
        encoder: inout VideoEncoder,
        frame: borrowing PixelBuffer,
        held: inout [[UInt8]]
    ) throws {
        if count == 0 {
            do {
                _ = try encoder.encode(frame, pts: Self.pts(held.count))
                Issue.record("encoded with every pooled frame held")
            } catch {
                #expect(error.code == .poolExhausted)
            }
            return
        }
        let encoded = try encoder.encode(frame, pts: Self.pts(held.count))
        held.append(encoded.bytes)
        try self.withHeldFrames(count - 1, encoder: &encoder, frame: frame, held: &held)
        _ = consume encoded
    }
}
