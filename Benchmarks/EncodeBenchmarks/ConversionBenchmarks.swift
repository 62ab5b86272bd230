// An app's rendered RGBA picture into a pooled I420 buffer: PackedPictureConverter
// against libyuv's ABGRToI420 called from C (RawCodecs/raw_convert.c) on the
// same picture into the same pool's buffers, at 1280×720 and 1920×1080.
// Both sides must produce the same planes, which the setup checks. Target:
// time ratio ≤ 1.05 and no allocation per frame.

import Benchmark
import BenchmarkSupport
import CastRemoteDisplay
import RawCodecs

/// An RGBA picture: a gradient, so the conversion has real work to do.
func rgbaPicture(width: Int, height: Int) -> [UInt8] {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let pixel = (y * width + x) * 4
            pixels[pixel] = UInt8(x * 255 / width)
            pixels[pixel + 1] = UInt8(y * 255 / height)
            pixels[pixel + 2] = UInt8((x + y) & 0xFF)
        }
    }
    return pixels
}

/// `picture` converted by libyuv from C into `frame`.
func rawConvert(_ picture: [UInt8], width: Int, height: Int, into frame: inout PixelBuffer) -> Int32 {
    frame.withUnsafeMutablePlanes { planes in
        raw_rgba_to_i420(
            picture, Int32(width * 4), Int32(width), Int32(height),
            planes.baseAddress(ofPlane: 0), Int32(planes.bytesPerRow(ofPlane: 0)),
            planes.baseAddress(ofPlane: 1), Int32(planes.bytesPerRow(ofPlane: 1)),
            planes.baseAddress(ofPlane: 2), Int32(planes.bytesPerRow(ofPlane: 2)))
    }
}

/// Every plane of `frame`, stride included.
func planeBytes(_ frame: borrowing PixelBuffer) -> [[UInt8]] {
    (0..<frame.planeCount).map { plane in frame.withUnsafeBytes(ofPlane: plane) { Array($0) } }
}

func conversionBenchmarks() {
    for (width, height) in [(1280, 720), (1920, 1080)] {
        let label = "\(width)x\(height)"
        let picture = rgbaPicture(width: width, height: height)
        Benchmark("Convert RGBA raw libyuv \(label) ×\(framesPerSample)") { benchmark in
            let pool = try PixelBufferPool(width: width, height: height)
            benchmark.startMeasurement()
            for _ in 0..<framesPerSample {
                guard var frame = pool.makeBuffer() else { throw BenchmarkSupportError(description: "pool exhausted") }
                blackHole(rawConvert(picture, width: width, height: height, into: &frame))
            }
        }
        Benchmark("Convert RGBA PackedPictureConverter \(label) ×\(framesPerSample)") { benchmark in
            let pool = try PixelBufferPool(width: width, height: height)
            var converter = PackedPictureConverter()
            // Same planes as libyuv from C, or the comparison means nothing.
            guard var ours = pool.makeBuffer(), var theirs = pool.makeBuffer() else {
                throw BenchmarkSupportError(description: "pool exhausted")
            }
            try picture.withUnsafeBytes { bytes in
                try converter.convert(
                    PackedPicture(bytes: bytes, width: width, height: height, format: .rgba), into: &ours)
            }
            _ = rawConvert(picture, width: width, height: height, into: &theirs)
            guard planeBytes(ours) == planeBytes(theirs) else {
                throw BenchmarkSupportError(description: "PackedPictureConverter's planes differ from libyuv's")
            }
            _ = consume ours
            _ = consume theirs
            benchmark.startMeasurement()
            try picture.withUnsafeBytes { bytes in
                let rgba = try PackedPicture(bytes: bytes, width: width, height: height, format: .rgba)
                for _ in 0..<framesPerSample {
                    guard var frame = pool.makeBuffer() else {
                        throw BenchmarkSupportError(description: "pool exhausted")
                    }
                    try converter.convert(rgba, into: &frame)
                }
            }
        }
    }
}
