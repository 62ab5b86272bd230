import CastEmulator
import CastRemoteDisplay
import Foundation

/// The luma PSNR of `decoded` against the I420 picture in `source`, dB.
func lumaPSNR(_ source: borrowing PixelBuffer, _ decoded: DecodedPicture) -> Double {
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
