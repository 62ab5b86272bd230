import CastCapture
import CastChannels
@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import CastX11TestSupport
import Testing

/// The SDK's desktop mirroring (``DesktopMirror``): a real X server
/// (Xvfb) captured and sent to the emulator (control channel in memory,
/// Cast Streaming over real UDP), decoded by its libvpx.
@Suite(.timeLimit(.minutes(10)), .serialized) struct DesktopMirrorTests {
    /// Mirrors until stopped: the emulator decodes the display's frames,
    /// the outcome carries the session's statistics and no failure, and
    /// stopping stops the device's mirroring app.
    @Test func aDisplayIsMirroredUntilStoppedAndStoppingEndsTheApp() async throws {
        try await Self.withMirror { emulator, mirror in
            #expect(await mirror.endReason == nil)
            #expect(
                mirror.session.configuration.resolution
                    == RemoteDisplayConfiguration.Resolution(width: 320, height: 240))
            let decoded = try await waitUntil(within: .seconds(20)) {
                (emulator.streamingReport?.video?.framesDecoded ?? 0) >= 3
            }
            #expect(decoded, "the emulator decoded \(emulator.streamingReport?.video?.framesDecoded ?? 0) frames")
            let outcome = await mirror.stop()
            #expect(outcome.failure == nil)
            #expect((outcome.statistics.video?.framesSent ?? 0) > 0)
            #expect(emulator.runningApplication == nil)
        }
    }

    /// The receiver stops the app (another sender, the remote): the mirror
    /// says its session ended, and stopping it then fails nothing.
    @Test func theReceiverStoppingTheAppEndsTheMirror() async throws {
        try await Self.withMirror { emulator, mirror in
            let streaming = try await waitUntil(within: .seconds(20)) { emulator.streamingReport != nil }
            #expect(streaming)
            _ = emulator.stopApplication()
            let ended = try await waitUntil(within: .seconds(20)) {
                if case .ended = mirror.session.state { true } else { false }
            }
            #expect(ended, "the session did not end")
            let reason = await mirror.endReason
            guard case .sessionEnded = reason else {
                Issue.record("ended for \(String(describing: reason))")
                return
            }
            #expect(await mirror.stop().failure == nil)
        }
    }

    /// A speaker has no screen: refused before anything is captured (the
    /// display does not exist, so capturing first would fail otherwise) or launched.
    @Test func aDeviceWithoutAScreenIsRefusedBeforeTheCaptureOpens() async throws {
        let emulator = try CastEmulator(logger: StreamingFixture.logger)
        try await emulator.start()
        var speaker = emulator.loopbackDevice
        (speaker.capabilities, speaker.source) = ([.audioOut], .multicastDNS)
        let link = try await CastDeviceLink.connect(
            to: speaker, configuration: CastConnectionConfiguration(deviceAuthentication: .off),
            factory: [emulator].inMemoryConnectionFactory, logger: StreamingFixture.logger)
        await #expect {
            try await DesktopMirror.start(
                on: link,
                configuration: DesktopMirror.Configuration(capture: ScreenCaptureConfiguration(display: ":4242")),
                logger: StreamingFixture.logger)
        } throws: { error in
            (error as? CastRemoteDisplayError)?.code == .noScreen
        }
        #expect(emulator.runningApplication == nil)
        await link.close()
        await emulator.stop()
    }

    /// The mirroring app is launched before the capture opens (a portal's
    /// dialog would come first otherwise): a device without it is refused
    /// with the launch's error though the display does not exist, and a
    /// capture that fails after the launch leaves nothing running.
    @Test func theAppIsLaunchedBeforeTheCaptureOpensAndStoppedWhenItFails() async throws {
        let nowhere = DesktopMirror.Configuration(capture: ScreenCaptureConfiguration(display: ":4242"))
        try await Self.withLink(applications: [EmulatedApplication.defaultMediaReceiver]) { _, link in
            await #expect {
                try await DesktopMirror.start(on: link, configuration: nowhere, logger: StreamingFixture.logger)
            } throws: { error in
                (error as? CastRemoteDisplayError)?.code == .launchFailed
            }
        }
        try await Self.withLink(applications: EmulatedApplication.standard) { emulator, link in
            let events = emulator.events()
            await #expect(throws: CaptureError.self) {
                try await DesktopMirror.start(on: link, configuration: nowhere, logger: StreamingFixture.logger)
            }
            let launched = await first(events, within: .seconds(10)) { event in
                guard case .messageReceived(_, let message) = event else { return false }
                return message.text?.contains(#""LAUNCH""#) == true
            }
            #expect(launched != nil, "nothing was launched before the capture failed")
            #expect(emulator.runningApplication == nil, "the app launched was not stopped")
        }
    }

    /// An emulator with `applications` and a link to it in memory; both closed after `body`.
    private static func withLink(
        applications: [EmulatedApplication]? = nil, _ body: (CastEmulator, CastDeviceLink) async throws -> Void
    ) async throws {
        try await CastEmulator.withLinked(
            CastEmulatorConfiguration(applications: applications), logger: StreamingFixture.logger, body)
    }

    /// A 320×240 Xvfb with something drawn, the emulator started, a link
    /// to it and a mirror of the display started on it; all torn down after `body`.
    private static func withMirror(_ body: (CastEmulator, DesktopMirror) async throws -> Void) async throws {
        // The display starts outside the turn, as ScreenStreamingTests' does: only the stream takes it.
        try await VirtualDisplay.with(width: 320, height: 240) { display in
            let painter = try XPainter(display: display.name, x: 0, y: 0, width: 320, height: 240)
            painter.draw([UInt8](repeating: 120, count: 320 * 240 * 4))
            try await RealTimeTurns.take(.thisProcess) {
                try await Self.mirror(display: display.name, body)
            }
        }
    }

    private static func mirror(display: String, _ body: (CastEmulator, DesktopMirror) async throws -> Void)
        async throws
    {
        try await Self.withLink { emulator, link in
            // A still screen is sent at the idle rate: 30 a second here, so frames come at once.
            let capture = ScreenCaptureConfiguration(display: display, showsCursor: false, idleFrameRate: 30)
            let mirror = try await DesktopMirror.start(
                on: link, configuration: DesktopMirror.Configuration(capture: capture),
                logger: StreamingFixture.logger)
            do {
                try await body(emulator, mirror)
            } catch {
                _ = await mirror.stop()
                throw error
            }
            _ = await mirror.stop()
        }
    }
}
