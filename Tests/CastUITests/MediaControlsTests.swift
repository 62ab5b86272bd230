import CastKit
import CastUI
import Foundation
import Testing

/// A status as receivers send them; `commands` 12303 is the Default Media
/// Receiver's (pause, seek, stream volume and mute, edit tracks, rate:
/// conformance 040, 046).
private func status(
    _ state: PlayerState, streamType: MediaStreamType = .buffered, commands: Int = 12303, currentTime: Double = 30,
    duration: Double? = 600, items: [Int]? = nil, currentItem: Int? = nil, repeatMode: RepeatMode? = nil,
    breakStatus: BreakStatus? = nil, clips: [AdBreakClipInfo]? = nil, live: LiveSeekableRange? = nil,
    extendedLoading: Bool = false
) -> MediaStatus {
    var metadata = MediaMetadata(type: .musicTrack, images: [MediaImage(url: "https://img.example/a.jpg")])
    metadata.setString("Song", forKey: .title)
    metadata.setString("Artist", forKey: .artist)
    var status = MediaStatus(
        mediaSessionID: 1,
        media: MediaInformation(
            contentID: "https://media.example/a", streamType: streamType, contentType: "audio/mp3", metadata: metadata,
            duration: duration,
            tracks: [
                MediaTrack(trackID: 1, kind: .text, subtype: .subtitles, contentID: "https://media.example/a.vtt")
            ],
            breakClips: clips),
        playerState: state, currentTime: currentTime,
        supportedMediaCommands: SupportedMediaCommands(rawValue: commands))
    status.items = items?.map { MediaQueueItem(itemID: $0, media: nil) }
    status.currentItemID = currentItem
    status.repeatMode = repeatMode
    status.breakStatus = breakStatus
    status.liveSeekableRange = live
    if extendedLoading { status.extendedStatus = ["playerState": "LOADING"] }
    return status
}

@Suite(.timeLimit(.minutes(3))) struct MediaControlsTests {
    @Test func withoutAMediaSessionNothingShowsOrWorks() {
        let controls = MediaControls(status: nil)
        #expect(controls == .none)
        #expect(!controls.shouldAppear)
        #expect(controls.enabledControls.isEmpty)
        #expect(controls.primaryAction == nil)
    }

    @Test func playingBufferedMediaPausesSeeksAndShowsItsMetadata() {
        let controls = MediaControls(status: status(.playing), position: 31.5)
        #expect(controls.shouldAppear)
        #expect(controls.title == "Song")
        #expect(controls.subtitle == "Artist")
        #expect(controls.image?.url == "https://img.example/a.jpg")
        #expect(controls.primaryAction == .pause)
        #expect(controls.position == 31.5)
        #expect(controls.seekableRange == 0...600)
        #expect(
            controls.enabledControls == [
                .togglePlayback, .stop, .seek, .skipForward, .skipBackward, .playbackRate, .tracks, .streamVolume,
                .streamMute,
            ])
    }

    @Test func pausedMediaPlays() {
        let controls = MediaControls(status: status(.paused))
        #expect(controls.primaryAction == .play)
        #expect(controls.isEnabled(.togglePlayback))
        #expect(controls.isEnabled(.seek))
    }

    @Test func mediaThatCannotPauseStops() {
        // Bits 2 | 4 | 8: seek, volume, mute, and no pause.
        let controls = MediaControls(status: status(.playing, commands: 14))
        #expect(controls.primaryAction == .stop)
        #expect(!controls.isEnabled(.tracks))
        #expect(!controls.isEnabled(.playbackRate))
    }

    @Test func aLiveStreamStopsAndSeeksOnlyWithinItsWindow() {
        let fixed = MediaControls(status: status(.playing, streamType: .live, duration: -1))
        #expect(fixed.isLive)
        #expect(fixed.primaryAction == .stop)
        #expect(fixed.seekableRange == nil)
        #expect(!fixed.isEnabled(.seek))
        #expect(!fixed.isEnabled(.playbackRate))

        let window = LiveSeekableRange(start: 100, end: 400, isMovingWindow: true, isLiveDone: false)
        let seekable = MediaControls(status: status(.playing, streamType: .live, duration: -1, live: window))
        #expect(seekable.seekableRange == 100...400)
        #expect(seekable.isEnabled(.seek))
        #expect(seekable.primaryAction == .stop)
    }

    @Test func nextAndPreviousNeedTheBitsAndANeighbour() {
        let queue = 12303 | 64 | 128
        let first = MediaControls(status: status(.playing, commands: queue, items: [1, 2, 3], currentItem: 1))
        #expect(first.isEnabled(.next))
        #expect(!first.isEnabled(.previous))
        let last = MediaControls(status: status(.playing, commands: queue, items: [1, 2, 3], currentItem: 3))
        #expect(!last.isEnabled(.next))
        #expect(last.isEnabled(.previous))
        let repeating = MediaControls(
            status: status(.playing, commands: queue, items: [1, 2, 3], currentItem: 3, repeatMode: .all))
        #expect(repeating.isEnabled(.next))
        let withoutBits = MediaControls(status: status(.playing, items: [1, 2, 3], currentItem: 2))
        #expect(!withoutBits.isEnabled(.next))
        #expect(!withoutBits.isEnabled(.previous))
    }

    @Test func anAdBreakCountsDownToSkippingAndBlocksSeeking() {
        let clips = [AdBreakClipInfo(id: "ad1", title: "An ad", duration: 30, whenSkippable: 5)]
        let breakStatus = BreakStatus(breakID: "pre", breakClipID: "ad1", currentBreakClipTime: 2, whenSkippable: 5)
        let early = MediaControls(
            status: status(.playing, commands: 12303 | 512, breakStatus: breakStatus, clips: clips), position: 31)
        #expect(early.adBreak?.clipTitle == "An ad")
        #expect(early.adBreak?.clipDuration == 30)
        // 2 s into the clip when the status came, 1 s since: 2 s to go.
        #expect(early.adBreak?.secondsUntilSkippable == 2)
        #expect(!early.isEnabled(.skipAd))
        #expect(!early.isEnabled(.seek))
        #expect(early.isEnabled(.togglePlayback))

        let later = MediaControls(
            status: status(.playing, commands: 12303 | 512, breakStatus: breakStatus, clips: clips), position: 34)
        #expect(later.adBreak?.secondsUntilSkippable == 0)
        #expect(later.isEnabled(.skipAd))

        let neverSkippable = BreakStatus(breakID: "pre", breakClipID: "ad2")
        let unskippable = MediaControls(status: status(.playing, commands: 12303 | 512, breakStatus: neverSkippable))
        #expect(unskippable.adBreak?.secondsUntilSkippable == nil)
        #expect(!unskippable.isEnabled(.skipAd))
    }

    /// Conformance 035 and 044: IDLE with `extendedStatus` LOADING is a session loading, not over.
    @Test func idleWhileLoadingStillShowsAndFinishedHides() {
        let loading = MediaControls(status: status(.idle, extendedLoading: true))
        #expect(loading.shouldAppear)
        #expect(loading.primaryAction == nil)
        #expect(loading.enabledControls == [.stop, .tracks, .streamVolume, .streamMute])
        let finished = MediaControls(status: status(.idle))
        #expect(!finished.shouldAppear)
        #expect(finished.enabledControls.isEmpty)
    }

    @Test func aPickerChoosesTheImage() {
        struct Last: ImagePicker {
            func image(from metadata: MediaMetadata, for usage: ImageUsage) -> MediaImage? {
                usage == .controller ? metadata.images.last : nil
            }
        }
        var playing = status(.playing)
        playing.media?.metadata?.images.append(MediaImage(url: "https://img.example/small.jpg", width: 96))
        #expect(MediaControls(status: playing, imagePicker: Last()).image?.url == "https://img.example/small.jpg")
    }

    /// Seed 003 (image hints): the picker sees the size the view shows the
    /// image at; ClosestSizeImagePicker takes the smallest image that covers
    /// it, else the largest, images of unknown size last.
    @Test func aSizedPickerTakesTheImageClosestToTheView() {
        let images = [
            MediaImage(url: "unknown"), MediaImage(url: "small", width: 96, height: 54),
            MediaImage(url: "large", width: 1_920, height: 1_080), MediaImage(url: "medium", width: 480, height: 270),
        ]
        let metadata = MediaMetadata(type: .movie, images: images)
        let picker = ClosestSizeImagePicker()
        func picked(_ width: Int, _ height: Int) -> String? {
            picker.image(
                from: metadata, for: ImageHints(usage: .controller, size: ImageSize(width: width, height: height)))?
                .url
        }
        #expect(picked(64, 36) == "small")
        #expect(picked(300, 200) == "medium")
        #expect(picked(1_280, 720) == "large")
        #expect(picked(4_000, 3_000) == "large", "none covers it: the largest")
        #expect(
            picker.image(from: metadata, for: ImageHints(usage: .background))?.url == "unknown", "no size: the first")
        #expect(
            picker.image(from: MediaMetadata(type: .movie, images: [MediaImage(url: "only")]), for: .controller)?.url
                == "only")
        // A picker that knows only usages still answers hints, by usage.
        #expect(
            FirstImagePicker().image(
                from: metadata, for: ImageHints(usage: .controller, size: ImageSize(width: 1, height: 1)))?.url
                == "unknown")
        var playing = status(.playing)
        playing.media?.metadata?.images = images
        #expect(
            MediaControls(status: playing, imagePicker: picker, imageSize: ImageSize(width: 300, height: 200)).image?
                .url == "medium")
    }

    @Test func theCastStateFollowsDevicesAndTheSession() {
        #expect(CastState(deviceCount: 0, sessionState: nil) == .noDevicesAvailable)
        #expect(CastState(deviceCount: 2, sessionState: nil) == .notConnected)
        #expect(CastState(deviceCount: 2, sessionState: .starting) == .connecting)
        #expect(CastState(deviceCount: 2, sessionState: .suspended) == .connecting)
        #expect(CastState(deviceCount: 0, sessionState: .connected) == .connected)
        #expect(CastState(deviceCount: 1, sessionState: .ended) == .notConnected)
    }

    @Test func volumeStepsStayOnTheGridAndWithinRange() {
        let volume = DeviceVolume(
            ReceiverVolume(level: 0.5, isMuted: false, controlType: .attenuation, stepInterval: 0.04), isConnected: true
        )
        #expect(volume.isEnabled)
        #expect(volume.level(afterSteps: 1) == 0.54)
        #expect(volume.level(afterSteps: -3) == 0.38)
        #expect(volume.level(afterSteps: 40) == 1)
        #expect(volume.level(afterSteps: -40) == 0)
        let fixed = DeviceVolume(ReceiverVolume(level: 1, controlType: .fixed, stepInterval: 0.04), isConnected: true)
        #expect(fixed.isFixed)
        #expect(!fixed.isEnabled)
        let unreported = DeviceVolume(ReceiverVolume(level: 0.3), isConnected: true)
        #expect(unreported.stepInterval == DeviceVolume.defaultStepInterval)
    }
}
