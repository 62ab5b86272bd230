public import CastMedia
public import CastMediaServer
public import Foundation
import Synchronization

/// Follows a media session's playback until it ends — the last item
/// finished, an error, another sender stopped or replaced it — or
/// ``stop()``: progress once a second, a stalled stream loaded again at its
/// position once, and the failures users meet named with their likely
/// cause (a receiver that cannot reach this machine, media it cannot
/// decode, a link too slow). What `cast play` shows while it stays.
///
/// ```swift
/// let watch = PlaybackWatch(media: client, server: server)
/// for try await event in watch.events() {
///     if case .progress(let progress) = event { print(progress.position) }
/// }
/// ```
public final class PlaybackWatch: Sendable {
    /// Where playback stands.
    public struct Progress: Sendable, Hashable {
        /// Playing, paused, buffering…
        public var playerState: PlayerState
        /// The position now, seconds.
        public var position: Double
        /// The media's length, when known.
        public var duration: Double?
        /// The title the media's metadata carries.
        public var title: String?
        /// Which item of the queue plays, from 1, when more than one is loaded.
        public var itemNumber: Int?
        /// How far a conversion of the media still in progress is.
        public var conversion: ConversionProgress?
    }

    /// How playback ended.
    public struct End: Sendable, Hashable {
        /// Why it ended.
        public enum Outcome: Sendable, Hashable {
            /// The last item played to its end.
            case finished
            /// ``PlaybackWatch/stop()`` stopped it.
            case stopped
            /// The receiver ended it otherwise (another sender, the remote), with its idle reason.
            case ended(IdleReason?)
        }

        /// Why it ended.
        public var outcome: Outcome
        /// The last position seen, seconds (`nil` when it finished or never started).
        public var position: Double?
        /// The media's length, when known.
        public var duration: Double?

        /// Creates an end.
        public init(outcome: Outcome, position: Double? = nil, duration: Double? = nil) {
            self.outcome = outcome
            self.position = position
            self.duration = duration
        }
    }

    /// What the watch reports.
    public enum Event: Sendable, Hashable {
        /// Once a second while it plays.
        case progress(Progress)
        /// Buffering lasted the buffering timeout: the media is loaded again at this position.
        case reloading(at: Double)
        /// Playback ended; the stream finishes after it.
        case ended(End)
    }

    private let media: RemoteMediaClient
    private let server: MediaServer?
    private let converting: [URL]
    private let itemCount: Int
    private let bufferingTimeout: Duration
    private let clock: any Clock<Duration>
    private let stopping = Mutex(false)

    /// Watches `media`.
    ///
    /// - Parameters:
    ///   - media: the media session's client, with the media loaded.
    ///   - server: the server local files are served from, whose requests
    ///     tell whether the receiver fetched anything.
    ///   - converting: the URLs of conversions in progress, for ``Progress/conversion``.
    ///   - itemCount: how many items were loaded.
    ///   - bufferingTimeout: how long BUFFERING may last before the media
    ///     is loaded again at its position, once, and then given up on. Default 20 s.
    ///   - clock: where the watch ticks (tests pass a clock they advance).
    public init(
        media: RemoteMediaClient, server: MediaServer? = nil, converting: [URL] = [], itemCount: Int = 1,
        bufferingTimeout: Duration = .seconds(20), clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.media = media
        self.server = server
        self.converting = converting
        self.itemCount = itemCount
        self.bufferingTimeout = bufferingTimeout
        self.clock = clock
    }

    /// Asks the watch to stop playback (STOP) and end with ``End/Outcome-swift.enum/stopped``.
    public func stop() {
        self.stopping.withLock { $0 = true }
    }

    /// The watch's events until playback ends (the last is ``Event/ended(_:)``).
    ///
    /// - Throws (from the stream): ``LocalMediaError`` `unreachable` when the
    ///   receiver buffered or failed without ever fetching from the server,
    ///   `undecodable` when it stopped with an error, `stalled` when it kept
    ///   buffering after loading again; or a media request's error.
    public func events() -> AsyncThrowingStream<Event, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let end = try await self.follow { continuation.yield($0) }
                    continuation.yield(.ended(end))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Ticks every 200 ms of `clock` until playback ends.
    private func follow(_ report: (Event) -> Void) async throws -> End {
        let tick = Duration.milliseconds(200)
        var ticks = 0
        var state = WatchState()
        while true {
            if self.stopping.withLock({ $0 }) {
                let position = self.media.approximateStreamPosition() ?? state.position
                _ = try? await self.media.stop()
                return End(outcome: .stopped, position: position, duration: state.duration)
            }
            if let end = try await self.step(&state, report: report, showing: ticks % 5 == 0) { return end }
            ticks += 1
            try await self.clock.sleep(for: tick)
            if state.isBuffering { state.buffered += tick }
        }
    }

    /// What the watch has seen so far.
    private struct WatchState {
        var started = false
        var position: Double?
        var duration: Double?
        /// Whether the player buffers, and for how long so far.
        var isBuffering = false
        var buffered = Duration.zero
        var reloaded = false
    }

    /// One look at the status: the end, when it ended.
    private func step(_ state: inout WatchState, report: (Event) -> Void, showing: Bool) async throws -> End? {
        guard let status = self.media.mediaStatus else {
            return state.started ? End(outcome: .ended(nil), position: state.position, duration: state.duration) : nil
        }
        if status.playerState != .idle {
            state.started = true
            state.position = self.media.approximateStreamPosition() ?? status.currentTime
            state.duration = status.media?.duration ?? state.duration
        }
        if status.playerState == .buffering {
            if !state.isBuffering { (state.isBuffering, state.buffered) = (true, .zero) }
            if state.buffered >= self.bufferingTimeout {
                let at = state.position ?? status.currentTime
                try await self.reload(status, at: at, again: state.reloaded)
                report(.reloading(at: at))
                state.reloaded = true
                state.buffered = .zero
            }
        } else {
            state.isBuffering = false
        }
        if status.playerState == .idle, state.started || status.idleReason != nil {
            switch status.idleReason {
            case .error: throw self.decodingFailure()
            case .finished: return End(outcome: .finished)
            default: return End(outcome: .ended(status.idleReason), position: state.position, duration: state.duration)
            }
        }
        if showing { report(.progress(self.progress(status))) }
        return nil
    }

    private func progress(_ status: MediaStatus) -> Progress {
        var itemNumber: Int?
        if self.itemCount > 1, let current = status.currentItemID, let items = status.items,
            let index = items.firstIndex(where: { $0.itemID == current })
        {
            itemNumber = index + 1
        }
        let conversion = self.server.flatMap { server in
            self.converting.compactMap { server.conversionProgress(of: $0) }.first { !$0.isFinished }
        }
        return Progress(
            playerState: status.playerState,
            position: self.media.approximateStreamPosition() ?? status.currentTime,
            duration: status.media?.duration, title: status.media?.metadata?.string(forKey: .title),
            itemNumber: itemNumber, conversion: conversion)
    }

    /// BUFFERING for the timeout: a receiver that never fetched anything
    /// cannot reach this machine; else the media is loaded again at its
    /// position, once (a stall some receivers do not recover from), and
    /// given up on when it stalls `again`.
    private func reload(_ status: MediaStatus, at position: Double, again: Bool) async throws {
        let waited = "\(Int(self.bufferingTimeout / .seconds(1))) s"
        if let server = self.server, server.recentRequests.isEmpty {
            throw LocalMediaError(
                .unreachable,
                "the receiver has been buffering for \(waited) and never fetched anything from "
                    + "\(server.baseURL.absoluteString): can it reach this machine (a firewall, another network or "
                    + "interface)?")
        }
        guard !again, let information = status.media else {
            throw LocalMediaError(
                .stalled,
                "the receiver kept buffering at \(Self.clock(position)) for \(waited), even after loading it again: "
                    + "it cannot fetch the media fast enough (a weak network link, or a bitrate too high for it)")
        }
        _ = try await self.media.load(
            MediaLoadRequestData(
                mediaInformation: information, currentTime: position, activeTrackIDs: status.activeTrackIDs))
    }

    /// IDLE with reason ERROR: the receiver could not play what it fetched.
    private func decodingFailure() -> LocalMediaError {
        let message =
            "the receiver stopped playing with an error: it most likely cannot decode this media "
            + "(its codecs, profile or bitrate)"
        guard let server = self.server, server.recentRequests.isEmpty else {
            return LocalMediaError(.undecodable, message)
        }
        return LocalMediaError(
            .unreachable,
            message + "; it never fetched anything from \(server.baseURL.absoluteString): can it reach this machine?")
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    public static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds.isFinite ? seconds : 0))
        let (hours, minutes, rest) = (total / 3_600, total / 60 % 60, total % 60)
        let padded = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(padded(minutes)):\(padded(rest))" : "\(minutes):\(padded(rest))"
    }
}
