import CastCapture
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import CastX11TestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Numbers and mean luma of decoded pictures, for the tests that need no PSNR.
private struct Seen {
    var numbers: [Int] = []
    var meanLuma: [Double] = []
}

/// X11 screen capture end to end: a real X server (Xvfb), an X client
/// drawing known pictures, `ScreenCapture` streaming to the emulator over
/// real UDP, and the emulator's libvpx decoding what arrives.
@Suite(.timeLimit(.minutes(10)), .serialized) struct ScreenStreamingTests {
    /// At 640×360 and at 720p30 (glass to glass: the receiver shows a
    /// picture at its capture time plus the target delay, so what the
    /// viewer waits is draw→capture plus that delay, as long as draw→decoded
    /// stays below it).
    @Test(arguments: [(640, 360), (1_280, 720)])
    func aMovingScreenArrivesIntactAndWithinMilliseconds(width: Int, height: Int) async throws {
        try await VirtualDisplay.with(width: width, height: height) { display in
            let scene = NumberedScene(width: width, height: height)
            let painter = try XPainter(display: display.name, x: 0, y: 0, width: width, height: height)
            let witness = SceneWitness(scene)
            let first = scene.pixels(0)
            // The witness learns of each picture before it goes on screen: told after,
            // a starved test thread let the receiver decode a picture the witness did not
            // know yet, counted as unknown (once under TSan with a busy core).
            witness.showed(0, first)
            painter.draw(first)
            try await StreamingFixture.with { fixture in
                fixture.emulator.streaming.observer.picture = { witness.observe(capturedAt: $0, picture: $1) }
                let configuration = RemoteDisplayConfiguration(
                    resolutions: [RemoteDisplayConfiguration.Resolution(width: width, height: height)], audio: nil,
                    adaptsToCongestion: false)
                let session = try await fixture.channel.beginSession(configuration: configuration)
                let capture = try ScreenCapture(
                    configuration: ScreenCaptureConfiguration(display: display.name, showsCursor: false))
                #expect(capture.sourceSize == RemoteDisplayConfiguration.Resolution(width: width, height: height))
                try capture.start(streamingTo: session)
                // 4 s of pictures at 30 per second, each drawn in one request.
                let start = ContinuousClock.now
                for number in 1...120 {
                    let pixels = scene.pixels(number)
                    witness.showed(number, pixels)
                    painter.draw(pixels)
                    try await Task.sleep(until: start + .milliseconds(33 * number))
                }
                // Stopped once the last picture is decoded: the receiver decodes in order, so every
                // picture before it that arrives has arrived.
                #expect(
                    try await waitUntil(within: .seconds(10)) { witness.result.numbers.contains(120) },
                    "the last picture was not decoded")
                capture.stop()
                #expect(await capture.finished() == nil)
                let result = witness.result
                let statistics = capture.statistics
                let latencies = result.latencies.sorted()
                let p50 = latencies.isEmpty ? nil : latencies[latencies.count / 2]
                let p99 = latencies.isEmpty ? nil : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
                let lags = result.captureLags.sorted()
                let glass = { (share: Int) -> String in
                    guard !lags.isEmpty else { return "-" }
                    return "\(lags[min(lags.count - 1, lags.count * share / 100)] + configuration.targetDelay)"
                }
                print(
                    "X11 \(width)x\(height): \(statistics), pictures \(result.numbers.count) (\(Set(result.numbers).count) distinct), "
                        + "unknown \(result.unknown), PSNR mean \(result.meanPSNR) "
                        + "min \(result.psnr.min() ?? 0), draw→decoded p50 \(String(describing: p50)) p99 \(String(describing: p99)), "
                        + "glass to glass (draw→capture + \(configuration.targetDelay) target delay) p50 \(glass(50)) p99 \(glass(99))"
                )
                // Every decoded picture is one that was drawn, whole.
                #expect(result.unknown == 0 && result.leadIn == 0)
                #expect(Set(result.numbers).count >= (Sanitizers.areActive ? 20 : 60))
                #expect(result.meanPSNR > 35)
                #expect((result.psnr.min() ?? 0) > 28)
                // Real time, not buffered: drawn to decoded well under the 400 ms playout delay. A
                // sanitizer build runs 5–15 times slower, and its p50 passed 1 s in a fresh-clone CI
                // run (stop 58): there, only that the pictures arrive whole.
                let drawnToDecoded = try #require(p50)
                if !Sanitizers.areActive { #expect(drawnToDecoded < .milliseconds(250)) }
            }
        }
    }

    @Test func aStillScreenSendsAFrameASecondAndWakesAtTheNextChange() async throws {
        try await VirtualDisplay.with(width: 640, height: 360) { display in
            let scene = NumberedScene(width: 640, height: 360)
            let painter = try XPainter(display: display.name, x: 0, y: 0, width: 640, height: 360)
            painter.draw(scene.pixels(1))
            let seen = NIOLockedValueBox(Seen())
            try await StreamingFixture.with { fixture in
                fixture.emulator.streaming.observer.picture = { _, picture in
                    guard let number = scene.number(inLuma: picture.planes[0]) else { return }
                    seen.withLockedValue { $0.numbers.append(number) }
                }
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil,
                        adaptsToCongestion: false))
                let capture = try ScreenCapture(
                    configuration: ScreenCaptureConfiguration(display: display.name, frameRate: 30, idleFrameRate: 1))
                try capture.start(streamingTo: session)
                // Counted from the first tick that found the screen unchanged: the start's picture is taken.
                #expect(
                    try await waitUntil(within: .seconds(5)) {
                        let statistics = capture.statistics
                        return statistics.framesCaptured > 0 && statistics.ticksUnchanged > 0
                    })
                let before = capture.statistics
                // What this checks is the rate over time: a still screen's pictures in 3 s.
                try await Task.sleep(for: .seconds(3))
                let still = capture.statistics
                let stillFrames = still.framesCaptured - before.framesCaptured
                print(
                    "still screen: \(stillFrames) frames in 3 s, \(still.ticksUnchanged - before.ticksUnchanged) idle ticks"
                )
                // At most 2 per second, and never none: the receiver does not starve.
                #expect(stillFrames <= 6)
                #expect(stillFrames >= 2)
                // Draw just after an idle picture, so the next idle one is a
                // second away: a capture taken well within that second woke
                // at the change, not at its idle timer.
                let idle = capture.statistics.framesCaptured
                #expect(try await waitUntil(within: .seconds(3)) { capture.statistics.framesCaptured > idle })
                let idlePicture = capture.statistics.framesCaptured
                let drawn = ContinuousClock.now
                painter.draw(scene.pixels(2))
                let captured = try await waitUntil(within: .seconds(3)) {
                    capture.statistics.framesCaptured > idlePicture
                }
                let wakeDelay = ContinuousClock.now - drawn
                print("still screen: the change was captured \(wakeDelay) after it was drawn")
                #expect(captured)
                #expect(wakeDelay < .milliseconds(500), "captured \(wakeDelay) after the change")
                let woke = try await waitUntil(within: .seconds(2)) { seen.withLockedValue { $0.numbers.contains(2) } }
                #expect(woke)
                capture.stop()
                _ = await capture.finished()
            }
        }
    }

    @Test func aCapturedWindowIsFollowedAsItMovesAndItsClosingEndsTheCapture() async throws {
        try await VirtualDisplay.with(width: 640, height: 360) { display in
            let painter = try XPainter(display: display.name, x: 20, y: 20, width: 320, height: 240)
            let gray = [UInt8](repeating: 200, count: 320 * 240 * 4)
            painter.draw(gray)
            let seen = NIOLockedValueBox(Seen())
            try await StreamingFixture.with { fixture in
                fixture.emulator.streaming.observer.picture = { _, picture in
                    let luma = picture.planes[0]
                    let mean = Double(luma.reduce(0) { $0 + Int($1) }) / Double(max(luma.count, 1))
                    seen.withLockedValue { $0.meanLuma.append(mean) }
                }
                let capture = try ScreenCapture(
                    configuration: ScreenCaptureConfiguration(
                        display: display.name, source: .window(painter.window), showsCursor: false))
                #expect(capture.sourceSize == RemoteDisplayConfiguration.Resolution(width: 320, height: 240))
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [capture.sourceSize], audio: nil, adaptsToCongestion: false))
                try capture.start(streamingTo: session)
                #expect(try await waitUntil(within: .seconds(5)) { !seen.withLockedValue { $0.meanLuma.isEmpty } })
                let beforeMoving = seen.withLockedValue { $0.meanLuma.count }
                painter.move(x: 300, y: 100)
                // The move damages the screen: a new picture follows at once, not at the idle rate.
                #expect(
                    try await waitUntil(within: .milliseconds(800)) {
                        seen.withLockedValue { $0.meanLuma.count } > beforeMoving
                    })
                let beforeClosing = seen.withLockedValue { $0.meanLuma }
                painter.destroyWindow()
                let failure = await capture.finished()
                #expect(failure?.code == .sourceVanished)
                // Every picture shows the window (gray 200 is luma ≈ 188), before and after it moved; never the black root.
                #expect(beforeClosing.count >= 2)
                #expect(beforeClosing.allSatisfy { abs($0 - 188) < 6 })
            }
        }
    }
}
