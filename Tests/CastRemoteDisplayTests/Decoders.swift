import COpus
import CVPX
import CastRemoteDisplay
import Foundation

/// libvpx's VP8 decoder, to check what the encoder produced.
final class VP8TestDecoder {
    private var context = vpx_codec_ctx_t()

    /// A decoded I420 picture, planes without padding.
    struct Picture: Equatable {
        var width: Int
        var height: Int
        var planes: [[UInt8]]
    }

    init() {
        _ = cvpx_codec_dec_init(&self.context, vpx_codec_vp8_dx(), nil, 0)
    }

    deinit {
        vpx_codec_destroy(&self.context)
    }

    func decode(_ bytes: [UInt8]) -> Picture? {
        guard vpx_codec_decode(&self.context, bytes, UInt32(bytes.count), nil, 0) == VPX_CODEC_OK else { return nil }
        var iterator: vpx_codec_iter_t? = nil
        guard let image = vpx_codec_get_frame(&self.context, &iterator)?.pointee else { return nil }
        let width = Int(image.d_w)
        let height = Int(image.d_h)
        let planePointers = [image.planes.0, image.planes.1, image.planes.2]
        let strides = [Int(image.stride.0), Int(image.stride.1), Int(image.stride.2)]
        var planes: [[UInt8]] = []
        for plane in 0..<3 {
            let planeWidth = plane == 0 ? width : (width + 1) / 2
            let planeHeight = plane == 0 ? height : (height + 1) / 2
            var bytes: [UInt8] = []
            bytes.reserveCapacity(planeWidth * planeHeight)
            if let base = planePointers[plane] {
                for row in 0..<planeHeight {
                    bytes += UnsafeBufferPointer(start: base + row * strides[plane], count: planeWidth)
                }
            }
            planes.append(bytes)
        }
        return Picture(width: width, height: height, planes: planes)
    }
}

/// libopus's decoder, to check what the encoder produced.
final class OpusTestDecoder {
    private let decoder: OpaquePointer
    let channels: Int

    init(channels: Int) {
        var status: Int32 = 0
        self.channels = channels
        // Test setup only: libopus cannot fail to create a 48 kHz mono/stereo decoder.
        self.decoder = opus_decoder_create(48_000, Int32(channels), &status)!
    }

    deinit {
        opus_decoder_destroy(self.decoder)
    }

    /// Interleaved samples of one packet, or nil on a decode error.
    func decode(_ packet: [UInt8]) -> [Float]? {
        var output = [Float](repeating: 0, count: 5_760 * self.channels)
        let count = opus_decode_float(self.decoder, packet, Int32(packet.count), &output, 5_760, 0)
        guard count > 0 else { return nil }
        return Array(output[0..<(Int(count) * self.channels)])
    }
}

/// The luma PSNR of `decoded` against the I420 picture in `source`, dB.
func lumaPSNR(_ source: borrowing PixelBuffer, _ decoded: VP8TestDecoder.Picture) -> Double {
    let stride = source.bytesPerRow(ofPlane: 0)
    let squaredError: Double = source.withUnsafeBytes(ofPlane: 0) { luma in
        var sum = 0.0
        for y in 0..<decoded.height {
            for x in 0..<decoded.width {
                let difference = Double(luma[y * stride + x]) - Double(decoded.planes[0][y * decoded.width + x])
                sum += difference * difference
            }
        }
        return sum
    }
    let meanSquaredError = max(squaredError / Double(decoded.width * decoded.height), 1e-10)
    return 10 * log10(255 * 255 / meanSquaredError)
}

/// Frequency of a sampled tone from its rising zero crossings, Hz.
func zeroCrossingFrequency(_ samples: ArraySlice<Float>, sampleRate: Double) -> Double {
    var crossings = 0
    var previous = samples.first ?? 0
    for sample in samples.dropFirst() {
        if previous < 0 && sample >= 0 { crossings += 1 }
        previous = sample
    }
    return Double(crossings) * sampleRate / Double(samples.count)
}

/// Root mean square of the samples.
func rms(_ samples: ArraySlice<Float>) -> Double {
    (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))).squareRoot()
}
