import CastChannels
public import CastKit
public import CastMedia
public import Foundation

/// What a media controller shows and which of its controls work, derived
/// from the media status alone: the state a `GCKUIMediaController` gives
/// its bound views. A mini controller and an expanded controller are two
/// presentations of the same value.
///
/// Each control is enabled by the status's supported-command bits and the
/// player's state, as the SDK enables its buttons: nothing works without a
/// media session; seeking needs `SupportedMediaCommands.seek`, a seekable
/// range and no ad playing; next and previous need the queue bits and an
/// item on that side; skipping an ad needs `SupportedMediaCommands.skipAd`
/// and the clip's `whenSkippable` reached.
public struct MediaControls: Sendable, Hashable {
    /// The one action of the play/pause toggle.
    public enum PrimaryAction: Sendable, Hashable {
        /// Resume the paused media.
        case play
        /// Pause the media.
        case pause
        /// Stop the media: a live stream, or media that cannot pause.
        case stop
    }

    /// A control a media controller offers.
    public enum Control: Sendable, Hashable, CaseIterable {
        /// The play/pause (or play/stop) toggle: ``primaryAction``.
        case togglePlayback
        /// Stop the media.
        case stop
        /// The seek bar.
        case seek
        /// Jump forward a few seconds.
        case skipForward
        /// Jump back a few seconds.
        case skipBackward
        /// The next queue item.
        case next
        /// The previous queue item.
        case previous
        /// The playback-rate control.
        case playbackRate
        /// The audio and text track chooser.
        case tracks
        /// The stream's volume.
        case streamVolume
        /// The stream's mute.
        case streamMute
        /// Skip the playing ad.
        case skipAd
    }

    /// The ad break in progress.
    public struct AdBreak: Sendable, Hashable {
        /// The clip's title, if the media lists it.
        public var clipTitle: String?
        /// How far into the clip, in seconds.
        public var clipPosition: Double
        /// The clip's length, if known.
        public var clipDuration: Double?
        /// Seconds until the clip can be skipped: 0 once it can, `nil` when it never can.
        public var secondsUntilSkippable: Double?
    }

    /// Whether a controller should show at all: there is a media session
    /// that is not over (playing, paused, buffering or loading).
    public var shouldAppear: Bool
    /// The player's state.
    public var playerState: PlayerState
    /// Whether the media is a live stream.
    public var isLive: Bool
    /// The title line.
    public var title: String?
    /// The subtitle line: the metadata's subtitle, or else its artist, series or studio.
    public var subtitle: String?
    /// The artwork `ImagePicker` chose.
    public var image: MediaImage?
    /// A local copy of ``image``, once the model's `ImageCache` has it.
    public var artworkFile: URL?
    /// What the play/pause toggle does now; `nil` when it does nothing.
    public var primaryAction: PrimaryAction?
    /// The position, in seconds.
    public var position: Double
    /// Where the seek bar runs: from 0 to the duration, or a live stream's
    /// seekable window; `nil` when there is nowhere to seek.
    public var seekableRange: ClosedRange<Double>?
    /// The playback rate.
    public var playbackRate: Double
    /// The media's tracks.
    public var tracks: [MediaTrack]
    /// The active tracks' ids.
    public var activeTrackIDs: [Int]
    /// The stream's volume.
    public var streamVolume: StreamVolume
    /// The ad break in progress, if any.
    public var adBreak: AdBreak?
    /// The controls that work now.
    public var enabledControls: Set<Control>

    /// Whether `control` works now.
    public func isEnabled(_ control: Control) -> Bool {
        self.enabledControls.contains(control)
    }

    /// Nothing to control: no media session.
    public static let none = MediaControls(status: nil)

    /// The controls for `status`.
    ///
    /// - Parameters:
    ///   - status: the merged media status; `nil` without a media session.
    ///   - position: the position now (`RemoteMediaClient.approximateStreamPosition(at:)`);
    ///     the status's own when `nil`. The time since the status arrived, which
    ///     it implies, also moves an ad clip's countdown on.
    ///   - imagePicker: which of the metadata's images to show.
    ///   - imageSize: the size the controller's image is shown at, for the picker; `nil` when unknown.
    public init(
        status: MediaStatus?, position: Double? = nil,
        imagePicker: any ImagePicker = FirstImagePicker(), imageSize: ImageSize? = nil
    ) {
        let media = status?.media
        let metadata = media?.metadata
        let playerState = status?.playerState ?? .idle
        let isLoading = status?.extendedStatus?["playerState"]?.stringValue == PlayerState.loading.rawValue
        let commands = status?.supportedMediaCommands ?? []
        let isLive = media?.streamType == .live
        self.shouldAppear = status != nil && (playerState != .idle || isLoading)
        self.playerState = playerState
        self.isLive = isLive
        self.title = metadata?.string(forKey: .title)
        self.subtitle =
            [.subtitle, .artist, .seriesTitle, .studio].lazy.compactMap { metadata?.string(forKey: $0) }
            .first
        self.image = metadata.flatMap {
            imagePicker.image(from: $0, for: ImageHints(usage: .controller, size: imageSize))
        }
        self.position = position ?? status?.currentTime ?? 0
        self.playbackRate = status?.playbackRate ?? 1
        self.tracks = media?.tracks ?? []
        self.activeTrackIDs = status?.activeTrackIDs ?? []
        self.streamVolume = status?.volume ?? StreamVolume()
        self.adBreak = status.flatMap { Self.adBreak(in: $0, position: position) }
        self.primaryAction = Self.primaryAction(for: playerState, isLive: isLive, commands: commands)
        self.seekableRange = Self.seekableRange(in: status, isLive: isLive)
        self.enabledControls =
            self.shouldAppear
            ? Self.enabledControls(
                status: status, playerState: playerState, isLive: isLive, commands: commands,
                primaryAction: self.primaryAction, seekableRange: self.seekableRange, adBreak: self.adBreak,
                hasTracks: !self.tracks.isEmpty)
            : []
    }

    /// What the play/pause toggle does in `playerState`: stop for a live
    /// stream or media that cannot pause; `nil` when nothing plays or is paused.
    private static func primaryAction(
        for playerState: PlayerState, isLive: Bool, commands: SupportedMediaCommands
    ) -> PrimaryAction? {
        switch playerState {
        case .playing, .buffering:
            return isLive || !commands.contains(.pause) ? .stop : .pause
        case .paused:
            return .play
        default:
            return nil
        }
    }

    /// Where the seek bar runs for `status`: a live stream's seekable window,
    /// or from 0 to the duration; `nil` when there is nowhere to seek.
    private static func seekableRange(in status: MediaStatus?, isLive: Bool) -> ClosedRange<Double>? {
        if isLive, let start = status?.liveSeekableRange?.start, let end = status?.liveSeekableRange?.end,
            start <= end
        {
            return start...end
        } else if !isLive, let duration = status?.media?.duration, duration > 0 {
            return 0...duration
        } else {
            return nil
        }
    }

    /// The controls that work for a controller that shows, by the status's
    /// supported commands, the player's state and whether an ad plays.
    private static func enabledControls(
        status: MediaStatus?, playerState: PlayerState, isLive: Bool, commands: SupportedMediaCommands,
        primaryAction: PrimaryAction?, seekableRange: ClosedRange<Double>?, adBreak: AdBreak?, hasTracks: Bool
    ) -> Set<Control> {
        var enabled = Set<Control>()
        let inAd = adBreak != nil
        let started = [.playing, .paused, .buffering].contains(playerState)
        if primaryAction != nil { enabled.insert(.togglePlayback) }
        enabled.insert(.stop)
        if commands.contains(.seek), seekableRange != nil, !inAd, started {
            enabled.formUnion([.seek, .skipForward, .skipBackward])
        }
        if !inAd, let status {
            if commands.contains(.queueNext), Self.hasItem(after: true, in: status) { enabled.insert(.next) }
            if commands.contains(.queuePrevious), Self.hasItem(after: false, in: status) {
                enabled.insert(.previous)
            }
        }
        if commands.contains(.playbackRate), !isLive, started { enabled.insert(.playbackRate) }
        if commands.contains(.editTracks), hasTracks { enabled.insert(.tracks) }
        if commands.contains(.streamVolume) { enabled.insert(.streamVolume) }
        if commands.contains(.streamMute) { enabled.insert(.streamMute) }
        if commands.contains(.skipAd), adBreak?.secondsUntilSkippable == 0 { enabled.insert(.skipAd) }
        return enabled
    }

    /// The break in `status`, its clip's countdown moved on by the time since the status.
    private static func adBreak(in status: MediaStatus, position: Double?) -> AdBreak? {
        guard let breakStatus = status.breakStatus, breakStatus.breakClipID != nil || breakStatus.breakID != nil
        else { return nil }
        let elapsed =
            status.playerState == .playing
            ? max(0, ((position ?? status.currentTime) - status.currentTime) / max(status.playbackRate, 0.01)) : 0
        let clip = status.media?.breakClips?.first { $0.id == breakStatus.breakClipID }
        let clipPosition = (breakStatus.currentBreakClipTime ?? 0) + elapsed
        let whenSkippable = breakStatus.whenSkippable ?? clip?.whenSkippable
        return AdBreak(
            clipTitle: clip?.title, clipPosition: clipPosition, clipDuration: clip?.duration,
            secondsUntilSkippable: whenSkippable.map { max(0, $0 - clipPosition) })
    }

    /// Whether the queue has an item after (or before) the current one;
    /// without a known queue, the command bit alone decides. Repeating the
    /// whole queue always has a neighbour.
    private static func hasItem(after: Bool, in status: MediaStatus) -> Bool {
        guard let items = status.items, items.count > 0, let current = status.currentItemID,
            let index = items.firstIndex(where: { $0.itemID == current })
        else { return true }
        if status.repeatMode == .all || status.repeatMode == .allAndShuffle { return items.count > 1 }
        return after ? index < items.count - 1 : index > 0
    }
}
