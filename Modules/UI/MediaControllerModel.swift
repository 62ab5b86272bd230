public import CastKit
import Foundation
import NIOConcurrencyHelpers

/// The current session's media as a controller shows it, and the actions
/// its buttons take: the SDK's `GCKUIMediaController`, free of any toolkit.
///
/// The model follows whichever session `SessionManager` has, and that
/// session's `RemoteMediaClient`: every status change, and while media
/// plays, the position every `positionInterval`, becomes a new
/// ``MediaControls`` on ``updates()``. A mini controller shows a few of its
/// fields, an expanded one all of them; each button is enabled by
/// ``MediaControls/isEnabled(_:)``.
///
/// ```swift
/// let controller = MediaControllerModel(sessionManager: context.sessionManager)
/// for await controls in controller.updates() {
///     playButton.label = controls.primaryAction == .pause ? "⏸" : "▶"
///     playButton.isEnabled = controls.isEnabled(.togglePlayback)
/// }
/// ```
public final class MediaControllerModel: Sendable {
    private let state = PublishedState(MediaControls.none)
    private let client = NIOLockedValueBox<RemoteMediaClient?>(nil)
    private let following = FollowingTask()
    private let artwork: Artwork
    /// How far ``skip(by:)`` jumps by default: 10 s, as the terminal controller's keys do.
    public let skipInterval: Double

    /// Creates a model following `sessionManager`'s session.
    ///
    /// - Parameters:
    ///   - sessionManager: whose current session to follow.
    ///   - imagePicker: which artwork to show; `nil`, the default, uses the
    ///     session manager's `CastOptions.imagePicker`.
    ///   - imageCache: where the artwork is fetched to (``MediaControls/artworkFile``);
    ///     `nil`, the default, uses the session manager's
    ///     `CastOptions.imageCache` (which fetches nothing unless the
    ///     app gave one, such as a ``DiskImageCache``).
    ///   - positionInterval: how often the position moves on while playing.
    ///   - skipInterval: the default jump of ``skip(by:)``, in seconds.
    ///   - clock: the clock the position's ticks run on; tests pass one they advance.
    public init(
        sessionManager: SessionManager, imagePicker: (any ImagePicker)? = nil,
        imageCache: (any ImageCache)? = nil, positionInterval: Duration = .milliseconds(500),
        skipInterval: Double = 10, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.artwork = Artwork(
            picker: imagePicker ?? sessionManager.options.imagePicker,
            cache: imageCache ?? sessionManager.options.imageCache,
            size: sessionManager.options.imageSizes[.controller])
        self.skipInterval = skipInterval
        let sessions = sessionManager.sessionUpdates()
        self.following.start { [weak self] in
            var followed: (client: RemoteMediaClient, task: Task<Void, Never>)?
            for await session in sessions {
                let client = session?.state == .ending ? nil : session?.remoteMediaClient
                guard client !== followed?.client else { continue }
                followed?.task.cancel()
                followed = nil
                guard let self else { return }
                self.client.withLockedValue { $0 = client }
                if let client {
                    let (state, current, artwork) = (self.state, self.client, self.artwork)
                    followed = (
                        client,
                        Task {
                            await Self.follow(
                                client, into: state, while: current, artwork: artwork, every: positionInterval,
                                on: clock)
                        }
                    )
                } else {
                    self.state.update { $0 = .none }
                }
            }
            followed?.task.cancel()
        }
    }

    /// Creates a model following one media client, for apps that talk to a
    /// receiver app without a `SessionManager` (a connection of their own).
    ///
    /// - Parameters:
    ///   - client: the media client to show and command.
    ///   - imagePicker: which artwork to show.
    ///   - imageCache: where the artwork is fetched to; `nil` fetches nothing.
    ///   - positionInterval: how often the position moves on while playing.
    ///   - skipInterval: the default jump of ``skip(by:)``, in seconds.
    ///   - clock: the clock the position's ticks run on; tests pass one they advance.
    public init(
        client: RemoteMediaClient, imagePicker: any ImagePicker = FirstImagePicker(),
        imageCache: (any ImageCache)? = nil, positionInterval: Duration = .milliseconds(500),
        skipInterval: Double = 10, clock: any Clock<Duration> = ContinuousClock()
    ) {
        let artwork = Artwork(picker: imagePicker, cache: imageCache, size: nil)
        self.artwork = artwork
        self.skipInterval = skipInterval
        self.client.withLockedValue { $0 = client }
        let (state, current) = (self.state, self.client)
        self.following.start {
            await Self.follow(
                client, into: state, while: current, artwork: artwork, every: positionInterval, on: clock)
        }
    }

    /// Stops following the session; the state stays as it last was.
    public func close() {
        self.following.cancel()
    }

    /// The controls now.
    public var controls: MediaControls { self.state.current }

    /// The controls now, then each change; each call gives a new, independent stream.
    public func updates() -> AsyncStream<MediaControls> {
        self.state.updates()
    }

    // MARK: Actions

    /// Does the play/pause toggle's ``MediaControls/primaryAction``.
    ///
    /// - Throws: `CastMediaError.Code.noMediaSession` when there is nothing
    ///   to toggle, or the receiver's refusal.
    public func togglePlayback() async throws(CastMediaError) {
        let client = try self.requireClient()
        switch self.controls.primaryAction {
        case .play: try await client.play()
        case .pause: try await client.pause()
        case .stop: try await client.stop()
        case nil: throw CastMediaError(.noMediaSession, "nothing plays or is paused")
        }
    }

    /// Stops the media.
    public func stop() async throws(CastMediaError) {
        try await self.requireClient().stop()
    }

    /// Seeks to `position` seconds, kept within ``MediaControls/seekableRange``.
    ///
    /// - Throws: `CastMediaError.Code.unsupportedCommand` while seeking is disabled.
    public func seek(to position: Double) async throws(CastMediaError) {
        let client = try self.requireClient()
        let controls = self.controls
        guard controls.isEnabled(.seek), let range = controls.seekableRange else {
            throw CastMediaError(.unsupportedCommand, "seeking is not possible now")
        }
        try await client.seek(MediaSeekOptions(interval: min(max(position, range.lowerBound), range.upperBound)))
    }

    /// Jumps `seconds` forward (or back, when negative) from the position
    /// now; ``skipInterval`` forward by default.
    public func skip(by seconds: Double? = nil) async throws(CastMediaError) {
        try await self.seek(to: self.controls.position + (seconds ?? self.skipInterval))
    }

    /// Plays the next queue item.
    public func next() async throws(CastMediaError) {
        try await self.requireClient().queueNext()
    }

    /// Plays the previous queue item.
    public func previous() async throws(CastMediaError) {
        try await self.requireClient().queuePrevious()
    }

    /// Sets the playback rate (0.5–2 on most receivers).
    public func setPlaybackRate(_ rate: Double) async throws(CastMediaError) {
        try await self.requireClient().setPlaybackRate(rate)
    }

    /// Makes `trackIDs` the active tracks; `[]` turns subtitles and alternative audio off.
    public func setActiveTrackIDs(_ trackIDs: [Int]) async throws(CastMediaError) {
        try await self.requireClient().setActiveTrackIDs(trackIDs)
    }

    /// Sets the stream's volume, 0–1.
    public func setStreamVolume(_ level: Double) async throws(CastMediaError) {
        try await self.requireClient().setStreamVolume(min(max(level, 0), 1))
    }

    /// Mutes or unmutes the stream.
    public func setStreamMuted(_ muted: Bool) async throws(CastMediaError) {
        try await self.requireClient().setStreamMuted(muted)
    }

    /// Skips the playing ad, once it can be skipped.
    public func skipAd() async throws(CastMediaError) {
        try await self.requireClient().skipAd()
    }

    // MARK: Following

    private func requireClient() throws(CastMediaError) -> RemoteMediaClient {
        guard let client = self.client.withLockedValue({ $0 }) else {
            throw CastMediaError(.noMediaSession, "no session with media control")
        }
        return client
    }

    /// How the artwork is chosen and fetched.
    private struct Artwork: Sendable {
        let picker: any ImagePicker
        let cache: (any ImageCache)?
        /// The size the controller's image is shown at (`CastOptions.imageSizes`).
        var size: ImageSize?
    }

    /// Publishes `client`'s status on every change, and its position while
    /// playing, for as long as it is the `current` client: a status that
    /// arrives as the session ends cannot overwrite the state that ended it.
    /// A newly picked image is fetched through the cache, once, and its
    /// local copy shown whenever that image is.
    ///
    /// Refreshes come from the status events and the position ticks at once,
    /// so each reads the client's status under the state's lock: the last
    /// published is the latest read, never an older snapshot written late
    /// (which once dropped the artwork a fetch had just set).
    private static func follow(
        _ client: RemoteMediaClient, into state: PublishedState<MediaControls>,
        while current: NIOLockedValueBox<RemoteMediaClient?>, artwork: Artwork, every interval: Duration,
        on clock: any Clock<Duration>
    ) async {
        let events = client.events()
        /// The image asked for last, and its local copy once fetched.
        let fetched = NIOLockedValueBox<(url: String, file: URL?)?>(nil)
        let refresh: @Sendable () -> Void = {
            var shown: MediaImage?
            state.update { published in
                guard current.withLockedValue({ $0 }) === client else { return }
                var controls = MediaControls(
                    status: client.mediaStatus, position: client.approximateStreamPosition(),
                    imagePicker: artwork.picker, imageSize: artwork.size)
                if let image = controls.image, let known = fetched.withLockedValue({ $0 }), known.url == image.url {
                    controls.artworkFile = known.file
                }
                published = controls
                shown = controls.image
            }
            guard let cache = artwork.cache, let image = shown, let url = URL(string: image.url),
                fetched.withLockedValue({ known in
                    guard known?.url != image.url else { return false }
                    known = (image.url, nil)
                    return true
                })
            else { return }
            Task {
                guard let file = try? await cache.localFile(for: url) else { return }
                fetched.withLockedValue { known in
                    if known?.url == image.url { known = (image.url, file) }
                }
                state.update { published in
                    if published.image == image, current.withLockedValue({ $0 }) === client {
                        published.artworkFile = file
                    }
                }
            }
        }
        refresh()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    if case .statusChanged = event { refresh() }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await clock.sleep(for: interval)
                    if client.mediaStatus?.playerState == .playing { refresh() }
                }
            }
            await group.waitForAll()
        }
    }
}
