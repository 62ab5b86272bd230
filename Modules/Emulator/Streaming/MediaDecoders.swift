import COpus
import CVPX
import CYUV
@_spi(Receiver) package import CastStreaming
import Foundation

/// A decoded I420 picture, planes without padding.
package struct DecodedPicture: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var planes: [[UInt8]]

    package init(width: Int, height: Int, planes: [[UInt8]]) {
        self.width = width
        self.height = height
        self.planes = planes
    }

    /// Copies an I420 picture out of a decoder's planes, `strides` bytes a row.
    init(width: Int, height: Int, copying pointers: [UnsafeMutablePointer<UInt8>?], strides: [Int]) {
        var planes: [[UInt8]] = []
        for plane in 0..<3 {
            let planeWidth = plane == 0 ? width : (width + 1) / 2
            let planeHeight = plane == 0 ? height : (height + 1) / 2
            var bytes = [UInt8](repeating: 0, count: planeWidth * planeHeight)
            if let base = pointers[plane] {
                bytes.withUnsafeMutableBytes { target in
                    for row in 0..<planeHeight {
                        UnsafeMutableRawBufferPointer(rebasing: target[(row * planeWidth)..<((row + 1) * planeWidth)])
                            .copyMemory(
                                from: UnsafeRawBufferPointer(start: base + row * strides[plane], count: planeWidth))
                    }
                }
            }
            planes.append(bytes)
        }
        self.init(width: width, height: height, planes: planes)
    }
}

/// A receiver's video decoder: one encoded frame in, its picture out.
package protocol VideoDecoding: AnyObject {
    /// Decodes one frame; `nil` on a decode error.
    func decode(_ bytes: [UInt8]) -> DecodedPicture?
}

/// The decoder a receiver uses for `codec`: libvpx for VP8 and VP9, FFmpeg's for H.264 and AV1.
package func makeVideoDecoder(for codec: VideoCodec) -> any VideoDecoding {
    switch codec {
    case .vp8, .vp9: VPXDecoder(codec: codec)
    case .h264, .av1: LibavcodecDecoder(codec: codec)
    }
}

/// libvpx's VP8 or VP9 decoder, as a receiver uses it. Not thread-safe: one owner.
package final class VPXDecoder: VideoDecoding {
    private var context = vpx_codec_ctx_t()
    private let isReady: Bool

    /// The picture type, by its older name.
    package typealias Picture = DecodedPicture

    package init(codec: VideoCodec = .vp8) {
        let interface = codec == .vp9 ? vpx_codec_vp9_dx() : vpx_codec_vp8_dx()
        self.isReady = cvpx_codec_dec_init(&self.context, interface, nil, 0) == VPX_CODEC_OK
    }

    deinit {
        if self.isReady { vpx_codec_destroy(&self.context) }
    }

    /// Decodes one frame; `nil` on a decode error.
    package func decode(_ bytes: [UInt8]) -> DecodedPicture? {
        guard self.isReady, vpx_codec_decode(&self.context, bytes, UInt32(bytes.count), nil, 0) == VPX_CODEC_OK
        else { return nil }
        var iterator: vpx_codec_iter_t? = nil
        guard let image = vpx_codec_get_frame(&self.context, &iterator)?.pointee else { return nil }
        return DecodedPicture(
            width: Int(image.d_w), height: Int(image.d_h), copying: [image.planes.0, image.planes.1, image.planes.2],
            strides: [Int(image.stride.0), Int(image.stride.1), Int(image.stride.2)])
    }
}

/// libopus's decoder at 48 kHz. Not thread-safe: one owner.
package final class OpusDecoder {
    private let decoder: OpaquePointer?
    package let channels: Int

    package init(channels: Int) {
        var status: Int32 = 0
        self.channels = channels
        self.decoder = opus_decoder_create(48_000, Int32(channels), &status)
    }

    deinit {
        if let decoder = self.decoder { opus_decoder_destroy(decoder) }
    }

    /// Interleaved samples of one packet; `nil` on a decode error.
    package func decode(_ packet: [UInt8]) -> [Float]? {
        guard let decoder = self.decoder else { return nil }
        var output = [Float](repeating: 0, count: 5_760 * self.channels)
        let count = opus_decode_float(decoder, packet, Int32(packet.count), &output, 5_760, 0)
        guard count > 0 else { return nil }
        return Array(output[0..<(Int(count) * self.channels)])
    }
}

/// Luma PSNR of `decoded` against `reference` (tight width × height bytes),
/// dB. A smaller picture of the same shape — the sender lowered the size
/// under congestion — is compared with the reference scaled to its size by
/// libyuv's box filter, as the sender scaled it. `nil` when the sizes do
/// not match that way.
package func lumaPSNR(reference: [UInt8], decoded: DecodedPicture) -> Double? {
    guard decoded.planes[0].count != reference.count, decoded.width > 0, decoded.height > 0 else {
        return tightLumaPSNR(reference: reference, decoded: decoded)
    }
    // The reference's size, from its byte count and the decoded picture's shape.
    let width = Int((Double(reference.count) * Double(decoded.width) / Double(decoded.height)).squareRoot().rounded())
    guard width > decoded.width, reference.count % width == 0 else { return nil }
    let height = reference.count / width
    var scaled = [UInt8](repeating: 0, count: decoded.width * decoded.height)
    ScalePlane(
        reference, Int32(width), Int32(width), Int32(height), &scaled, Int32(decoded.width), Int32(decoded.width),
        Int32(decoded.height), kFilterBox)
    return tightLumaPSNR(reference: scaled, decoded: decoded)
}

private func tightLumaPSNR(reference: [UInt8], decoded: DecodedPicture) -> Double? {
    let luma = decoded.planes[0]
    guard reference.count == luma.count, !luma.isEmpty else { return nil }
    var squaredError = 0.0
    reference.withUnsafeBufferPointer { reference in
        luma.withUnsafeBufferPointer { luma in
            for index in 0..<luma.count {
                let difference = Double(Int(reference[index]) - Int(luma[index]))
                squaredError += difference * difference
            }
        }
    }
    let meanSquaredError = max(squaredError / Double(luma.count), 1e-10)
    return 10 * log10(255 * 255 / meanSquaredError)
}
