import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CastCapture

/// Wayland's way to the screen, end to end with real daemons: a D-Bus
/// session bus, PipeWire with WirePlumber, a PipeWire node showing known
/// pictures (what a compositor's screen-cast stream is), the portal's
/// stand-in handing that node out, and `ScreenCapture(.portal)` streaming
/// it to the emulator, which decodes it with libvpx.
@Suite(.timeLimit(.minutes(10)), .serialized) struct PortalCaptureTests {
    /// What the desktop is asked, as the portal's specification says; its
    /// stream reaches the receiver. (That a share arrives whole — every
    /// picture decoded one that was drawn, sharp — RealPortalTests shows
    /// through sway's and GNOME's own portals.)
    @Test func theDesktopIsAskedAsThePortalSpecifiesAndItsStreamArrives() async throws {
        try await ScreenCastDesktop.with { desktop in
            let scene = NumberedScene(width: 640, height: 360)
            let source = try PipeWireVideoSource(socket: desktop.pipeWireSocket, width: 640, height: 360)
            let portal = try await desktop.startPortal(node: try await source.nodeID(), width: 640, height: 360)
            let witness = SceneWitness(scene)
            try await StreamingFixture.with { fixture in
                fixture.emulator.streaming.observer.picture = { witness.observe(capturedAt: $0, picture: $1) }
                let show = { (number: Int) in
                    let pixels = scene.pixels(number)
                    // Known to the witness before it is shown (see ScreenStreamingTests).
                    witness.showed(number, pixels)
                    source.show(pixels)
                }
                show(0)
                let capture = try await ScreenCapture.open(
                    configuration: ScreenCaptureConfiguration(
                        source: .portal, showsCursor: false, busAddress: desktop.busAddress))
                #expect(capture.sourceSize == RemoteDisplayConfiguration.Resolution(width: 640, height: 360))
                #expect(capture.restoreToken.flatMap(UUID.init(uuidString:)) != nil)  // the portal's tokens are UUIDs
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [capture.sourceSize], audio: nil, adaptsToCongestion: false))
                try capture.start(streamingTo: session)
                show(1)
                #expect(
                    try await waitUntil(within: .seconds(10)) { witness.result.numbers.contains(1) },
                    "the picture shown was not decoded")
                capture.stop()
                #expect(await capture.finished() == nil)
                let result = witness.result
                #expect(result.unknown == 0 && result.leadIn == 0)
                #expect(result.meanPSNR > 35)
                session.stop()
            }
            // What the desktop was asked: a monitor or a window, one, the
            // cursor left out, the grant kept until revoked; the session closed at the end.
            let calls = portal.calls()
            let selection = try #require(calls.first { $0["call"] as? String == "SelectSources" })
            let options = try #require(selection["options"] as? [String: any Sendable])
            #expect(options["types"] as? Int == 3)
            #expect(options["multiple"] as? Bool == false)
            #expect(options["cursor_mode"] as? Int == 1)
            #expect(options["persist_mode"] as? Int == 2)
            #expect(options["restore_token"] == nil)
            #expect(
                try await waitUntil(within: .seconds(5)) {
                    portal.calls().contains { $0["call"] as? String == "Session.Close" }
                })
            await portal.stop()
        }
    }

    /// A portal that makes virtual monitors (`AvailableSourceTypes` with 4,
    /// the ScreenCast interface's version 4) is asked for one for
    /// `CaptureSource.virtualMonitor`: the virtual type alone, no lasting
    /// grant; its stream is read at the size asked. (No real backend here
    /// offers the type: GNOME 43's and KDE 5.27's portals report 3.)
    @Test func aPortalThatMakesVirtualMonitorsIsAskedForOne() async throws {
        try await ScreenCastDesktop.with { desktop in
            let source = try PipeWireVideoSource(socket: desktop.pipeWireSocket, width: 320, height: 240)
            let portal = try await desktop.startPortal(
                node: try await source.nodeID(), width: 320, height: 240, sourceTypes: 7)
            let picture = NumberedScene(width: 320, height: 240).pixels(1)
            source.show(picture)
            let capture = try await ScreenCapture.open(
                configuration: ScreenCaptureConfiguration(
                    source: .virtualMonitor(.init(width: 320, height: 240)), busAddress: desktop.busAddress))
            #expect(capture.sourceSize == RemoteDisplayConfiguration.Resolution(width: 320, height: 240))
            #expect(capture.restoreToken == nil)
            // Its first picture may come after the format (under ThreadSanitizer, past the capture's
            // first second), and a picture sent before the link was made is not sent again: it is
            // shown again until one arrives (a fresh clone's run waited 10 s for the one shown before).
            var frame = try PixelBuffer(format: .i420, width: 320, height: 240)
            #expect(
                try await waitUntil(within: .seconds(10)) {
                    source.show(picture)
                    return (try? capture.captureFrame(into: &frame)) != nil
                })
            let selection = try #require(portal.calls().first { $0["call"] as? String == "SelectSources" })
            let options = try #require(selection["options"] as? [String: any Sendable])
            #expect(options["types"] as? Int == 4)
            #expect(options["persist_mode"] == nil)
            capture.stop()
            await portal.stop()
        }
    }

    @Test func aRestoreTokenSharesTheSameSourceWithoutAskingAgain() async throws {
        try await ScreenCastDesktop.with { desktop in
            let source = try PipeWireVideoSource(socket: desktop.pipeWireSocket, width: 320, height: 240)
            source.show([UInt8](repeating: 90, count: 320 * 240 * 4))
            let portal = try await desktop.startPortal(node: try await source.nodeID(), width: 320, height: 240)
            var configuration = ScreenCaptureConfiguration(source: .portal, busAddress: desktop.busAddress)
            let first = try await ScreenCapture.open(configuration: configuration)
            #expect(first.restoreToken != nil)
            configuration.restoreToken = first.restoreToken
            let second = try await ScreenCapture.open(configuration: configuration)
            #expect(second.sourceSize == RemoteDisplayConfiguration.Resolution(width: 320, height: 240))
            let starts = portal.calls().filter { $0["call"] as? String == "Start" }.map { $0["dialog"] as? Bool }
            #expect(starts == [true, false])
            let selections = portal.calls().filter { $0["call"] as? String == "SelectSources" }
            #expect(
                (selections.last?["options"] as? [String: any Sendable])?["restore_token"] as? String
                    == first.restoreToken)
            // The cursor is asked for, drawn by the compositor.
            #expect((selections.first?["options"] as? [String: any Sendable])?["cursor_mode"] as? Int == 2)
            await portal.stop()
        }
    }

    /// A token the portal refuses (not a UUID: a file from elsewhere, a
    /// stand-in's) is dropped and the desktop asks again: the cast goes on.
    @Test func aRestoreTokenThePortalRefusesLeadsToTheDialogAgain() async throws {
        try await ScreenCastDesktop.with { desktop in
            let source = try PipeWireVideoSource(socket: desktop.pipeWireSocket, width: 320, height: 240)
            source.show([UInt8](repeating: 90, count: 320 * 240 * 4))
            let portal = try await desktop.startPortal(node: try await source.nodeID(), width: 320, height: 240)
            let capture = try await ScreenCapture.open(
                configuration: ScreenCaptureConfiguration(
                    source: .portal, busAddress: desktop.busAddress, restoreToken: "restore-1"))
            #expect(capture.sourceSize == RemoteDisplayConfiguration.Resolution(width: 320, height: 240))
            #expect(capture.restoreToken.flatMap(UUID.init(uuidString:)) != nil)
            let selections = portal.calls().filter { $0["call"] as? String == "SelectSources" }
            let tokens = selections.map { ($0["options"] as? [String: any Sendable])?["restore_token"] as? String }
            #expect(tokens == ["restore-1", nil])
            let starts = portal.calls().filter { $0["call"] as? String == "Start" }.map { $0["dialog"] as? Bool }
            #expect(starts == [true])
            await portal.stop()
        }
    }

    @Test func refusedSharingNoPortalAndNoPipeWireAreTypedErrors() async throws {
        try await ScreenCastDesktop.with { desktop in
            let configuration = ScreenCaptureConfiguration(source: .portal, busAddress: desktop.busAddress)
            let noPortal = await #expect(throws: CaptureError.self) {
                try await ScreenCapture.open(configuration: configuration)
            }
            #expect(noPortal?.code == .portalUnavailable)

            let source = try PipeWireVideoSource(socket: desktop.pipeWireSocket, width: 320, height: 240)
            let refusing = try await desktop.startPortal(
                node: try await source.nodeID(), width: 320, height: 240, answer: "cancel")
            let refused = await #expect(throws: CaptureError.self) {
                try await ScreenCapture.open(configuration: configuration)
            }
            #expect(refused?.code == .permissionDenied)
            #expect(refused?.message.contains("cancelled") == true)
            await refusing.stop()

            // Response 2 (ended another way, as a backend that cannot capture answers):
            // the desktop failed; the user refused nothing.
            let failing = try await desktop.startPortal(
                node: try await source.nodeID(), width: 320, height: 240, answer: "fail")
            let failed = await #expect(throws: CaptureError.self) {
                try await ScreenCapture.open(configuration: configuration)
            }
            #expect(failed?.code == .portalUnavailable)
            #expect(
                failed?.message.contains("portal failed (Start, response 2)") == true, "\(String(describing: failed))")
            await failing.stop()

            // A node that is not there: the stream never gets a format.
            let nowhere = try await desktop.startPortal(node: 9_999, width: 320, height: 240)
            let missing = await #expect(throws: CaptureError.self) {
                try await ScreenCapture.open(configuration: configuration)
            }
            #expect(missing?.code == .sourceNotFound)
            await nowhere.stop()
        }
        try await ScreenCastDesktop.with(pipeWire: false) { desktop in
            let portal = try await desktop.startPortal(node: 40, width: 320, height: 240)
            let configuration = ScreenCaptureConfiguration(source: .portal, busAddress: desktop.busAddress)
            let noPipeWire = await #expect(throws: CaptureError.self) {
                try await ScreenCapture.open(configuration: configuration)
            }
            #expect(noPipeWire?.code == .pipeWireUnavailable)
            await portal.stop()

            // A desktop with no portal, no mutter and no sway makes no second screen, and says so.
            let extend = ScreenCaptureConfiguration(
                source: .virtualMonitor(.hd1080), busAddress: desktop.busAddress, swaySocket: nil)
            let noMonitor = await #expect(throws: CaptureError.self) {
                try await ScreenCapture.open(configuration: extend)
            }
            #expect(noMonitor?.code == .virtualMonitorUnavailable)
            #expect(noMonitor?.userMessage.contains("mirror a screen instead (without --extend)") == true)
            // A sway socket nothing answers on is said as such.
            let goneSway = await #expect(throws: CaptureError.self) {
                var configuration = extend
                configuration.swaySocket = desktop.directory.appendingPathComponent("sway-ipc.sock").path
                return try await ScreenCapture.open(configuration: configuration)
            }
            #expect(goneSway?.message.contains("cannot reach sway at") == true, "\(String(describing: goneSway))")
        }
        let noBus = await #expect(throws: CaptureError.self) {
            try await ScreenCapture.open(
                configuration: ScreenCaptureConfiguration(source: .portal, busAddress: "unix:path=/nonexistent/bus"))
        }
        #expect(noBus?.code == .portalUnavailable)
    }
}

/// `PipeWireGrabber` alone, on both kinds of buffer a compositor sends:
/// shared memory, and linear DMA-BUFs (a compositor on a GPU) it maps itself.
@Suite(.timeLimit(.minutes(10)), .serialized) struct PipeWireBufferTests {
    @Test(arguments: [false, true])
    func buffersAreReadPixelForPixel(asDMABUFs dmabuf: Bool) async throws {
        try await ScreenCastDesktop.with { desktop in
            let source = try PipeWireVideoSource(
                socket: desktop.pipeWireSocket, width: 320, height: 240, dmabuf: dmabuf)
            let scene = NumberedScene(width: 320, height: 240)
            source.show(scene.pixels(1))
            let node = try await source.nodeID()
            let grabber = try await onOwnThread {
                try PipeWireGrabber(
                    remote: try PipeWireVideoSource.connectedSocket(desktop.pipeWireSocket), nodeID: node,
                    frameRate: 30, owner: nil)
            }
            #expect(grabber.receivesDMABUFs == dmabuf)
            for number in 2...4 {
                let pixels = scene.pixels(number)
                source.show(pixels)
                // The picture arrives within moments; read until it has.
                var read: [UInt8] = []
                let deadline = ContinuousClock.now + .seconds(5)
                while read != pixels, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    read = []
                    _ = try grabber.withCurrentImage { image in
                        guard let base = image.base else { return }
                        for row in 0..<image.height {
                            read += UnsafeRawBufferPointer(
                                start: base + row * image.bytesPerRow, count: image.width * 4)
                        }
                    }
                }
                let seen = read.count == pixels.count ? scene.number(inLuma: scene.luma(of: read)) : nil
                #expect(
                    read == pixels, "picture \(number): read picture \(String(describing: seen)) (\(read.count) bytes)")
            }
        }
    }
}
