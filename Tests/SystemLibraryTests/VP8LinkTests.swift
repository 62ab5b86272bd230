import CVPX
import Foundation
import Testing

/// libvpx links and works: one 320×240 I420 frame encodes to a VP8 key frame
/// and decodes back to a close copy.
@Suite(.timeLimit(.minutes(3))) struct VP8LinkTests {
    static let width: UInt32 = 320
    static let height: UInt32 = 240

    @Test func encodesAndDecodesOneI420Frame() throws {
        let source = Self.testPattern()

        var config = vpx_codec_enc_cfg_t()
        #expect(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK)
        config.g_w = Self.width
        config.g_h = Self.height
        config.g_timebase = vpx_rational(num: 1, den: 30)
        config.rc_target_bitrate = 2_000
        config.g_threads = 1
        config.g_lag_in_frames = 0  // Packets come out of the very call that encoded them.
        var encoder = vpx_codec_ctx_t()
        #expect(cvpx_codec_enc_init(&encoder, vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK)
        defer { vpx_codec_destroy(&encoder) }

        var image = vpx_image_t()
        var planes = source
        let wrapped = planes.withUnsafeMutableBufferPointer { bytes in
            vpx_img_wrap(&image, VPX_IMG_FMT_I420, Self.width, Self.height, 1, bytes.baseAddress)
        }
        #expect(wrapped != nil)
        let encodeStatus = planes.withUnsafeMutableBufferPointer { _ in
            vpx_codec_encode(&encoder, &image, 0, 1, vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF), UInt(VPX_DL_REALTIME))
        }
        #expect(encodeStatus == VPX_CODEC_OK)

        var encoded: [UInt8] = []
        var isKey = false
        var iterator: vpx_codec_iter_t? = nil
        while let packet = vpx_codec_get_cx_data(&encoder, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let frame = packet.pointee.data.frame
            encoded += UnsafeRawBufferPointer(start: frame.buf, count: frame.sz)
            isKey = isKey || (frame.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY)) != 0
        }
        #expect(isKey)
        // A VP8 key frame starts with a 3-byte frame tag (bit 0 clear = key
        // frame) followed by the start code 9d 01 2a and the 14-bit dimensions.
        try #require(encoded.count > 10)
        #expect(encoded[0] & 0x01 == 0)
        #expect(Array(encoded[3..<6]) == [0x9D, 0x01, 0x2A])
        #expect(UInt32(encoded[6]) | UInt32(encoded[7] & 0x3F) << 8 == Self.width)
        #expect(UInt32(encoded[8]) | UInt32(encoded[9] & 0x3F) << 8 == Self.height)

        var decoder = vpx_codec_ctx_t()
        #expect(cvpx_codec_dec_init(&decoder, vpx_codec_vp8_dx(), nil, 0) == VPX_CODEC_OK)
        defer { vpx_codec_destroy(&decoder) }
        #expect(vpx_codec_decode(&decoder, encoded, UInt32(encoded.count), nil, 0) == VPX_CODEC_OK)
        var frames: vpx_codec_iter_t? = nil
        let decoded = try #require(vpx_codec_get_frame(&decoder, &frames))
        #expect(decoded.pointee.d_w == Self.width)
        #expect(decoded.pointee.d_h == Self.height)
        #expect(decoded.pointee.fmt == VPX_IMG_FMT_I420)

        let psnr = Self.lumaPSNR(source: source, decoded: decoded.pointee)
        #expect(psnr > 30, "luma PSNR \(psnr) dB")
    }

    /// Diagonal luma gradient with flat chroma: easy to code, so a broken
    /// codec (not a hard picture) is what would lower the PSNR.
    static func testPattern() -> [UInt8] {
        let width = Int(Self.width)
        let height = Int(Self.height)
        var planes = [UInt8](repeating: 128, count: width * height * 3 / 2)
        for y in 0..<height {
            for x in 0..<width {
                planes[y * width + x] = UInt8((x + y) % 256)
            }
        }
        return planes
    }

    static func lumaPSNR(source: [UInt8], decoded: vpx_image_t) -> Double {
        let width = Int(Self.width)
        let height = Int(Self.height)
        let stride = Int(decoded.stride.0)
        guard let plane = decoded.planes.0 else { return 0 }
        var squaredError = 0.0
        for y in 0..<height {
            for x in 0..<width {
                let difference = Double(source[y * width + x]) - Double(plane[y * stride + x])
                squaredError += difference * difference
            }
        }
        let meanSquaredError = max(squaredError / Double(width * height), 1e-10)
        return 10 * log10(255 * 255 / meanSquaredError)
    }
}
