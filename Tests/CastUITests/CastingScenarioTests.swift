import CastEmulator
import CastKit
import CastTestSupport
import CastUI
import Foundation
import NIOConcurrencyHelpers
import Testing

let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// Options for a context that multicasts nowhere (no interface: the tests
/// add the emulator as a known host), remembers no session, and reaches
/// `emulators` in memory.
func uiOptions(
    applicationID: String = CastApplicationID.defaultMediaReceiver, joining emulators: [CastEmulator] = []
) -> CastOptions {
    var options = CastOptions(
        receiverApplicationID: applicationID,
        connection: CastConnectionConfiguration(deviceAuthentication: .off),
        requestTimeout: .seconds(5), sessionStore: nil, logger: quietLogger)
    options.connectionFactory = emulators.inMemoryConnectionFactory
    options.discovery.interfaces = .named([])
    return options
}

/// Every state a model published, kept in order, with waiting for one.
final class StateLog<State: Sendable>: Sendable {
    private let states = NIOLockedValueBox<[State]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<State>) {
        let states = self.states
        self.task = Task {
            for await state in stream { states.withLockedValue { $0.append(state) } }
        }
    }

    deinit { self.task.cancel() }

    var all: [State] { self.states.withLockedValue { $0 } }
    var latest: State? { self.all.last }

    /// Waits (at most `timeout`) until the latest state satisfies `predicate`; returns it.
    @discardableResult
    func wait(within timeout: Duration = .seconds(30), until predicate: (State) -> Bool) async -> State? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let latest = self.latest, predicate(latest) { return latest }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

/// The scripted scenario, against the emulator, with every model's
/// state and each control's enabled state checked at each step.
@Suite(.timeLimit(.minutes(3))) struct CastingScenarioTests {
    @Test func noDevicesThenFoundConnectingConnectedMediaLiveAdsAndEnd() async throws {
        // A Chromecast's volume model: attenuation, step 0.04 (the emulator's `chromecast` profile).
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(
                name: "Living Room TV", profile: .chromecast, mediaClock: .manual()),
            logger: quietLogger)
        try await emulator.start()
        defer { Task { await emulator.stop() } }
        let context = CastContext(options: uiOptions(joining: [emulator]))
        let button = CastButtonModel(context: context)
        let chooser = DeviceChooserModel(context: context, quietPeriod: .milliseconds(200))
        let controller = MediaControllerModel(
            sessionManager: context.sessionManager, positionInterval: .milliseconds(50))
        let volume = VolumeModel(sessionManager: context.sessionManager)
        let buttonLog = StateLog(button.updates())
        let chooserLog = StateLog(chooser.updates())
        let controlsLog = StateLog(controller.updates())
        let volumeLog = StateLog(volume.updates())

        // No devices: the chooser opens, scans actively, and says why the list is empty.
        await chooser.open()
        #expect(await context.discoveryManager.scanMode == .active)
        #expect(button.buttonState == CastButtonState(castState: .noDevicesAvailable))
        let empty = await chooserLog.wait { $0.isOpen }
        #expect(empty?.entries.isEmpty == true)
        #expect(empty?.noDevicesReason == .noNetworkInterface)
        #expect(controller.controls == .none)
        #expect(volume.volume == .unavailable)

        // One found: asked whether it runs the app, then listed.
        let device = await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: emulator.port, friendlyName: "Living Room TV")
        #expect(await buttonLog.wait { $0.castState == .notConnected } != nil)
        let listed = await chooserLog.wait { $0.entries.count == 1 }
        #expect(listed?.entries.first?.device.id == device.id)
        #expect(listed?.entries.first?.isCurrent == false)
        #expect(listed?.noDevicesReason == nil)
        #expect(listed?.connection == nil)

        // Connecting, then connected.
        let session = try await chooser.select(device)
        #expect(
            await buttonLog.wait { $0 == CastButtonState(castState: .connected, deviceName: "Living Room TV") } != nil)
        #expect(
            buttonLog.all.map(\.castState).drop { $0 != .notConnected }.reduce(into: [CastState]()) {
                if $0.last != $1 { $0.append($1) }
            } == [.notConnected, .connecting, .connected])
        let connected = await chooserLog.wait { $0.connection?.isConnecting == false }
        #expect(connected?.connection?.applicationName == "Default Media Receiver")
        #expect(connected?.entries.first?.isCurrent == true)
        #expect(connected?.entries.first?.statusText == "Default Media Receiver")
        let deviceVolume = try #require(await volumeLog.wait { $0.isEnabled })
        #expect(deviceVolume.stepInterval == 0.04)
        #expect(!deviceVolume.isFixed)

        // Volume keys: three quick presses are three steps.
        try await volume.setLevel(0.5)
        await volumeLog.wait { abs($0.level - 0.5) < 0.001 }
        async let up1: Void = volume.stepUp()
        async let up2: Void = volume.stepUp()
        async let up3: Void = volume.stepUp()
        _ = try await (up1, up2, up3)
        #expect(await volumeLog.wait { abs($0.level - 0.62) < 0.001 } != nil)
        #expect(abs((emulator.volume.level ?? 0) - 0.62) < 0.001)
        try await volume.stepDown()
        #expect(await volumeLog.wait { abs($0.level - 0.58) < 0.001 } != nil)

        // Media loads: buffering, then playing with pause, seek, rate, tracks and volume enabled.
        let client = try #require(session.remoteMediaClient)
        var metadata = MediaMetadata(type: .movie, images: [MediaImage(url: "https://img.example/poster.jpg")])
        metadata.setString("Big Buck Bunny", forKey: .title)
        metadata.setString("Blender Foundation", forKey: .subtitle)
        let movie = MediaInformation(
            contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata, duration: 600,
            tracks: [
                MediaTrack(trackID: 1, kind: .text, subtype: .subtitles, contentID: "https://media.example/en.vtt")
            ])
        try await client.load(MediaLoadRequestData(mediaInformation: movie))
        let buffering = await controlsLog.wait { $0.shouldAppear }
        #expect(buffering?.playerState == .buffering)
        #expect(
            buffering?.enabledControls == [
                .togglePlayback, .stop, .seek, .skipForward, .skipBackward, .playbackRate, .tracks, .streamVolume,
                .streamMute,
            ])
        #expect(buffering?.primaryAction == .pause)
        #expect(buffering?.title == "Big Buck Bunny")
        #expect(buffering?.subtitle == "Blender Foundation")
        #expect(buffering?.image?.url == "https://img.example/poster.jpg")
        emulator.advanceMediaClock(by: .milliseconds(100))
        let playing = try #require(await controlsLog.wait { $0.playerState == .playing })
        #expect(playing.primaryAction == .pause)
        #expect(playing.seekableRange == 0...600)
        #expect(
            playing.enabledControls == [
                .togglePlayback, .stop, .seek, .skipForward, .skipBackward, .playbackRate, .tracks, .streamVolume,
                .streamMute,
            ])

        // Pause through the model; then seek 10 s on.
        try await controller.togglePlayback()
        let paused = try #require(await controlsLog.wait { $0.playerState == .paused })
        #expect(paused.primaryAction == .play)
        #expect(paused.enabledControls == playing.enabledControls)
        let before = paused.position
        try await controller.skip()
        #expect(await controlsLog.wait { abs($0.position - (before + 10)) < 0.5 } != nil)
        try await controller.togglePlayback()
        #expect(await controlsLog.wait { $0.playerState == .playing } != nil)
        try await controller.setPlaybackRate(1.5)
        #expect(await controlsLog.wait { $0.playbackRate == 1.5 } != nil)

        // A live stream: stop instead of pause, no seeking, no rate.
        var live = movie
        live.contentID = "https://media.example/live.m3u8"
        live.streamType = .live
        live.duration = nil
        try await client.load(MediaLoadRequestData(mediaInformation: live))
        emulator.advanceMediaClock(by: .milliseconds(100))
        let onAir = try #require(await controlsLog.wait { $0.isLive && $0.playerState == .playing })
        #expect(onAir.primaryAction == .stop)
        #expect(onAir.seekableRange == nil)
        #expect(onAir.enabledControls == [.togglePlayback, .stop, .tracks, .streamVolume, .streamMute])

        // An ad break: a clip skippable at once, then one that never is; no seeking meanwhile.
        var withAds = movie
        withAds.contentID = "https://media.example/ads.mp4"
        withAds.breaks = [AdBreakInfo(id: "pre", breakClipIDs: ["ad1", "ad2"], position: 0)]
        withAds.breakClips = [
            AdBreakClipInfo(
                id: "ad1", title: "First ad", contentURL: "https://media.example/ad1.mp4", duration: 20,
                whenSkippable: 0),
            AdBreakClipInfo(id: "ad2", title: "Second ad", contentURL: "https://media.example/ad2.mp4", duration: 10),
        ]
        try await client.load(MediaLoadRequestData(mediaInformation: withAds))
        emulator.advanceMediaClock(by: .milliseconds(100))
        let firstAd = try #require(await controlsLog.wait { $0.adBreak?.clipTitle == "First ad" })
        #expect(firstAd.adBreak?.secondsUntilSkippable == 0)
        #expect(
            firstAd.enabledControls == [
                .togglePlayback, .stop, .skipAd, .playbackRate, .tracks, .streamVolume, .streamMute,
            ])
        try await controller.skipAd()
        let secondAd = try #require(await controlsLog.wait { $0.adBreak?.clipTitle == "Second ad" })
        #expect(secondAd.adBreak?.secondsUntilSkippable == nil)
        #expect(
            secondAd.enabledControls == [.togglePlayback, .stop, .playbackRate, .tracks, .streamVolume, .streamMute])
        let error = await caughtError(CastMediaError.self) { try await controller.seek(to: 100) }
        #expect(error?.code == .unsupportedCommand)

        // The end: stop casting stops the app; every model goes back.
        await chooser.stopCasting()
        #expect(await buttonLog.wait { $0 == CastButtonState(castState: .notConnected) } != nil)
        #expect(await controlsLog.wait { $0 == .none } != nil)
        #expect(await volumeLog.wait { $0 == .unavailable } != nil)
        #expect(await chooserLog.wait { $0.connection == nil && $0.entries.first?.isCurrent == false } != nil)
        #expect(emulator.runningApplication == nil)
        await chooser.dismiss()
        #expect(await context.discoveryManager.scanMode == .passive)
        #expect(await chooserLog.wait { !$0.isOpen } != nil)
        await chooser.close()
        withExtendedLifetime((button, controller, volume)) {}
    }
}
