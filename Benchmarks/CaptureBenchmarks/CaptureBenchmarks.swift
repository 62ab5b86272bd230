// Capture + convert + scale per picture, 1920×1080 → 1280×720: CastCapture's
// ScreenCapture (MIT-SHM read, libyuv scale and I420 conversion into a
// pooled buffer) against the same X request and libyuv calls made directly
// from C (RawCodecs/raw_capture.c), on the same Xvfb screen, in one run.
// Target: ratio ≤ 1.1, ≤ 5 ms a picture, no allocation per picture.
//
// The benchmark starts its own Xvfb (`make setup` installs it) showing a
// busy picture, and stops it at the end.

import Benchmark
import BenchmarkSupport
import CastCapture
import CastRemoteDisplay
import Foundation
import RawCodecs

let picturesPerSample = 30

/// Xvfb on a display of its own, for as long as this process lives.
final class BenchmarkDisplay: Sendable {
    let name: String
    private let server: SupervisedServer

    init() throws {
        let number = 700 + Int(getpid() % 200)
        self.name = ":\(number)"
        self.server = try SupervisedServer("Xvfb :\(number) -screen 0 1920x1080x24 -nolisten tcp -noreset")
        let socket = "/tmp/.X11-unix/X\(number)"
        for _ in 0..<250 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
        maxDuration: .seconds(5),
        maxIterations: 40
    )
    guard let display = try? BenchmarkDisplay() else {
        print("capture benchmarks skipped: Xvfb did not start")
        return
    }

    Benchmark("Capture raw XCB+libyuv 1080p→720p ×\(picturesPerSample)") { benchmark in
        guard let raw = raw_capture_create(display.name, 1_280, 720) else {
            print("raw capture could not start on \(display.name)")
            return
        }
        defer { raw_capture_destroy(raw) }
        var y = [UInt8](repeating: 0, count: 1_280 * 720)
        var u = [UInt8](repeating: 0, count: 640 * 360)
        var v = [UInt8](repeating: 0, count: 640 * 360)
        _ = raw_capture_frame(raw, &y, &u, &v)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for _ in 0..<picturesPerSample { blackHole(raw_capture_frame(raw, &y, &u, &v)) }
        }
    }

    Benchmark("Capture ScreenCapture 1080p→720p ×\(picturesPerSample)") { benchmark in
        let capture = try ScreenCapture(
            configuration: ScreenCaptureConfiguration(display: display.name, showsCursor: false))
        let pool = try PixelBufferPool(width: 1_280, height: 720, capacity: 1)
        if var frame = pool.makeBuffer() { try capture.captureFrame(into: &frame) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for _ in 0..<picturesPerSample {
                guard var frame = pool.makeBuffer() else { continue }
                try capture.captureFrame(into: &frame)
            }
        }
    }
}
