// Capture + convert + scale per picture, 1920×1080 → 1280×720: CastCapture's
// ScreenCapture (MIT-SHM read, libyuv scale and I420 conversion into a
// pooled buffer) against the same X request and libyuv calls made directly
// from C (RawCodecs/raw_capture.c), on the same Xvfb screen, in one run.
// Target: ratio ≤ 1.1, ≤ 5 ms a picture, no allocation per picture (the
// 136 mallocs per 30 pictures are libxcb's replies, in the C baseline too).
// The paired benchmark times 30 pictures of each back to back in every
// sample and records their ratio, which a shared host's drift cannot skew.
//
// Mirroring CPU: `ScreenCapture` streaming the screen at 30 fps to
// cast-receiver in another process (capture, VP8, encryption, sending) for
// 5 s, on a still desktop and on one where a 640×360 block moves every
// picture (RawCodecs/raw_painter.c); the process's CPU time.
//
// The benchmark starts its own Xvfb (`make setup` installs it) and stops it
// at the end.

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

/// The C baseline's planes.
final class RawPlanes {
    var y = [UInt8](repeating: 0, count: 1_280 * 720)
    var u = [UInt8](repeating: 0, count: 640 * 360)
    var v = [UInt8](repeating: 0, count: 640 * 360)

    func capture(_ raw: OpaquePointer) -> Int32 { raw_capture_frame(raw, &self.y, &self.u, &self.v) }
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
            throw BenchmarkSupportError(description: "raw capture could not start on \(display.name)")
        }
        defer { raw_capture_destroy(raw) }
        let planes = RawPlanes()
        _ = planes.capture(raw)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for _ in 0..<picturesPerSample { blackHole(planes.capture(raw)) }
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

    let ratio = BenchmarkMetric.custom(
        "ScreenCapture ÷ raw XCB+libyuv (×1000)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Capture ScreenCapture ÷ raw XCB+libyuv 1080p→720p, paired",
        configuration: .init(metrics: [ratio], warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 10)
    ) { benchmark in
        guard let raw = raw_capture_create(display.name, 1_280, 720) else {
            throw BenchmarkSupportError(description: "raw capture could not start on \(display.name)")
        }
        defer { raw_capture_destroy(raw) }
        let planes = RawPlanes()
        let capture = try ScreenCapture(
            configuration: ScreenCaptureConfiguration(display: display.name, showsCursor: false))
        let pool = try PixelBufferPool(width: 1_280, height: 720, capacity: 1)
        _ = planes.capture(raw)
        if var frame = pool.makeBuffer() { try capture.captureFrame(into: &frame) }
        for _ in 0..<4 {
            let rawStart = ContinuousClock.now
            for _ in 0..<picturesPerSample { blackHole(planes.capture(raw)) }
            let rawTime = ContinuousClock.now - rawStart
            let oursStart = ContinuousClock.now
            for _ in 0..<picturesPerSample {
                guard var frame = pool.makeBuffer() else { continue }
                try capture.captureFrame(into: &frame)
            }
            let oursTime = ContinuousClock.now - oursStart
            benchmark.measurement(ratio, Int((oursTime / rawTime * 1_000).rounded()))
        }
    }

    for changing in [false, true] {
        Benchmark(
            "Mirroring 1080p→720p 30 fps ×5 s, \(changing ? "changing" : "still") desktop (cast-receiver in another process)",
            configuration: .init(
                metrics: [.cpuUser, .cpuSystem, .cpuTotal], warmupIterations: 0, maxDuration: .seconds(60),
                maxIterations: 3)
        ) { benchmark in
            guard let painter = raw_painter_create(display.name) else {
                throw BenchmarkSupportError(description: "no X connection to \(display.name)")
            }
            defer { raw_painter_destroy(painter) }
            raw_painter_draw(painter, 0)
            let receiver = try ExternalReceiver()
            let mirroring = try await MirroringConnection(
                port: receiver.port,
                configuration: RemoteDisplayConfiguration(videoCodecs: [.vp8], audio: nil))
            let capture = try ScreenCapture(
                configuration: ScreenCaptureConfiguration(display: display.name, showsCursor: false))
            try capture.start(streamingTo: mirroring.session)
            let pace = RealTimePace()
            // One second to settle (key frame, first round trips), then five measured.
            for picture in 0..<180 {
                if picture == 30 { benchmark.startMeasurement() }
                if changing { raw_painter_draw(painter, Int32(picture)) }
                pace.wait(for: picture + 1)
            }
            benchmark.stopMeasurement()
            capture.stop()
            await mirroring.close()
        }
    }
}
