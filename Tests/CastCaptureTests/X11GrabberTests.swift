import CastRemoteDisplay
import CastTestSupport
import CastX11TestSupport
import Testing

@testable import CastCapture

/// The X11 side alone, against a real Xvfb: sources, the cursor, errors.
/// One at a time, in turn with the real-time tests: an X server starting
/// takes a good share of a 2-core machine, more so under a sanitizer.
@Suite(.timeLimit(.minutes(10)), .serialized) struct X11GrabberTests {
    /// Runs `body` with an Xvfb of its own, in turn with the real-time tests.
    private static func withDisplay(
        width: Int, height: Int, _ body: (VirtualDisplay) async throws -> Void
    ) async throws {
        try await RealTimeTurns.take(.childProcesses) {
            try await VirtualDisplay.with(width: width, height: height, body)
        }
    }

    /// The pixel at `x, y` of a captured picture: (blue, green, red).
    private func pixel(_ image: CapturedImage, x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let base = image.base!.assumingMemoryBound(to: UInt8.self) + y * image.bytesPerRow + x * 4
        return (base[0], base[1], base[2])
    }

    /// Xvfb has one RandR output, `screen`, and ignores `SetMonitor`
    /// (`xrandr --setmonitor` changes nothing there), so the monitor found
    /// by name is the whole screen; a region inside the screen is what the
    /// window tests cover.
    @Test func aMonitorIsCapturedByItsRandRName() async throws {
        try await Self.withDisplay(width: 640, height: 360) { display in
            let painter = try XPainter(display: display.name, x: 0, y: 0, width: 640, height: 360)
            var pixels = [UInt8](repeating: 50, count: 640 * 360 * 4)
            for row in 0..<360 {
                for index in (row * 640 * 4)..<(row * 640 * 4 + 320 * 4) { pixels[index] = 200 }
            }
            painter.draw(pixels)
            // Before anyone has listed the monitors: a fresh X server has no atom for the name yet.
            let grabber = try X11Grabber(display: display.name, source: .output("screen"), showsCursor: false)
            let monitors = try ScreenCapture.monitors(display: display.name)
            #expect(monitors.map(\.name) == ["screen"])
            #expect(monitors.first.map { [$0.x, $0.y, $0.width, $0.height] } == [0, 0, 640, 360])
            #expect(try grabber.size == (640, 360))
            let image = try grabber.grab()
            #expect(image.width == 640 && image.height == 360)
            #expect(self.pixel(image, x: 0, y: 0) == (200, 200, 200))
            #expect(self.pixel(image, x: 639, y: 359) == (50, 50, 50))
            #expect {
                try X11Grabber(display: display.name, source: .output("HDMI-9"), showsCursor: false)
            } throws: { error in
                // The message names the monitors there are.
                (error as? CaptureError)?.code == .sourceNotFound && "\(error)".contains("screen")
            }
        }
    }

    @Test func aWindowIsReadWhereItIsNowAndClippedToTheScreen() async throws {
        try await Self.withDisplay(width: 640, height: 360) { display in
            let painter = try XPainter(display: display.name, x: 20, y: 20, width: 160, height: 120)
            painter.draw([UInt8](repeating: 200, count: 160 * 120 * 4))
            let grabber = try X11Grabber(display: display.name, source: .window(painter.window), showsCursor: false)
            var image = try grabber.grab()
            #expect(image.width == 160 && image.height == 120)
            #expect(self.pixel(image, x: 80, y: 60) == (200, 200, 200))
            painter.move(x: 400, y: 200)
            image = try grabber.grab()
            #expect(image.width == 160 && image.height == 120)
            #expect(self.pixel(image, x: 0, y: 0) == (200, 200, 200))
            painter.move(x: 600, y: 300)
            image = try grabber.grab()
            #expect(image.width == 40 && image.height == 60)
            painter.destroyWindow()
            #expect(throws: CaptureError.self) { try grabber.grab() }
        }
    }

    @Test func theCursorIsBlendedOnlyWhenAskedFor() async throws {
        try await Self.withDisplay(width: 320, height: 180) { display in
            let painter = try XPainter(display: display.name, x: 0, y: 0, width: 320, height: 180)
            painter.draw([UInt8](repeating: 0, count: 320 * 180 * 4))
            painter.warpPointer(x: 160, y: 90)
            func litPixels(showingCursor: Bool) throws -> Int {
                let grabber = try X11Grabber(display: display.name, source: .screen, showsCursor: showingCursor)
                _ = try grabber.hasChanged()
                let image = try grabber.grab()
                var lit = 0
                for y in 60..<120 {
                    for x in 130..<190 where self.pixel(image, x: x, y: y) != (0, 0, 0) { lit += 1 }
                }
                return lit
            }
            #expect(try litPixels(showingCursor: false) == 0)
            #expect(try litPixels(showingCursor: true) > 20)
        }
    }

    @Test func aPointerThatMovesCountsAsAChange() async throws {
        try await Self.withDisplay(width: 320, height: 180) { display in
            let painter = try XPainter(display: display.name, x: 0, y: 0, width: 320, height: 180)
            let grabber = try X11Grabber(display: display.name, source: .screen, showsCursor: true)
            _ = try grabber.hasChanged()
            _ = try grabber.grab()
            #expect(try grabber.hasChanged() == false)
            painter.warpPointer(x: 10, y: 10)
            #expect(try grabber.hasChanged())
        }
    }

    @Test func failuresAreTypedErrors() async throws {
        #expect {
            try ScreenCapture(configuration: ScreenCaptureConfiguration(display: ":4242"))
        } throws: { ($0 as? CaptureError)?.code == .displayUnavailable }
        try await Self.withDisplay(width: 320, height: 180) { display in
            #expect {
                try ScreenCapture(
                    configuration: ScreenCaptureConfiguration(display: display.name, source: .window(0x7f_ffff)))
            } throws: { ($0 as? CaptureError)?.code == .sourceNotFound }
            #expect {
                try ScreenCapture(configuration: ScreenCaptureConfiguration(display: display.name, frameRate: 0))
            } throws: { ($0 as? CaptureError)?.code == .invalidConfiguration }
            #expect {
                try ScreenCapture(
                    configuration: ScreenCaptureConfiguration(display: display.name, frameRate: 10, idleFrameRate: 20))
            } throws: { ($0 as? CaptureError)?.code == .invalidConfiguration }
        }
    }
}
