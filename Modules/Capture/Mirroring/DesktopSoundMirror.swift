public import CastChannels
public import CastRemoteDisplay
public import CastTransport

/// This machine's sound — what every application plays, or one source —
/// sent to a speaker, a speaker group or a TV over audio-only Cast
/// Streaming, hundreds of milliseconds behind: what `cast audio --capture`
/// and the tray's "Send sound" run.
///
/// ```swift
/// let link = try await CastDeviceLink.connect(to: speaker)
/// let mirror = try await DesktopSoundMirror.start(on: link)
/// while await mirror.endReason == nil, !userPressedStop { try await Task.sleep(for: .seconds(1)) }
/// let outcome = await mirror.stop()
/// await link.close()
/// ```
///
/// The recording opens before anything is launched (a sound server that is
/// not there fails at once). A speaker that drops off the network is
/// connected again with ``Configuration/reconnection``'s back-off and the
/// same stream goes on (`AudioCastSession.events()` tells of it).
public final class DesktopSoundMirror: Sendable {
    /// What to record and how to send it.
    public struct Configuration: Sendable {
        /// The sound server and source. Default: the default sink's monitor.
        public var sound: DesktopAudioConfiguration
        /// Opus bitrate and channels. Default stereo at 128 kbit/s.
        public var audio: RemoteDisplayConfiguration.Audio
        /// How long after capture the device plays the sound. Default 400 ms.
        public var targetDelay: Duration
        /// How a dropped connection is retried. Default `AudioCastSession.reconnection`.
        public var reconnection: ReconnectPolicy

        /// Creates a configuration.
        public init(
            sound: DesktopAudioConfiguration = DesktopAudioConfiguration(),
            audio: RemoteDisplayConfiguration.Audio = RemoteDisplayConfiguration.Audio(),
            targetDelay: Duration = .milliseconds(400),
            reconnection: ReconnectPolicy = AudioCastSession.reconnection
        ) {
            self.sound = sound
            self.audio = audio
            self.targetDelay = targetDelay
            self.reconnection = reconnection
        }
    }

    /// Why sending ended by itself.
    public enum EndReason: Sendable {
        /// The recording ended or failed (the sound server went away), with its error then.
        case captureEnded(CaptureError?)
        /// The receiver ended the session (its app stopped or was replaced),
        /// or the device did not come back after the connection dropped
        /// (`RemoteDisplaySessionEndReason.connectionLost`).
        case sessionEnded(RemoteDisplaySessionEndReason)
    }

    /// How sending went, once stopped.
    public struct Outcome: Sendable {
        /// The session's last statistics.
        public var statistics: RemoteDisplayStatistics
        /// The recording's error, if it failed.
        public var failure: CaptureError?
    }

    /// The recording.
    public let capture: DesktopAudioCapture
    /// The audio session: its app, statistics and connection events.
    public let audio: AudioCastSession

    private init(capture: DesktopAudioCapture, audio: AudioCastSession) {
        self.capture = capture
        self.audio = audio
    }

    /// Opens the recording, launches the device's audio app (or screen
    /// mirroring where it lacks one) and starts sending.
    ///
    /// - Parameters:
    ///   - link: the device, connected; it stays the caller's to close.
    ///   - configuration: what to record and how to send it.
    ///   - clock: where reconnection waits.
    /// - Throws: `CaptureError` `audioUnavailable` when the sound server or
    ///   source is not there; `CastRemoteDisplayError` `noSoundOutput` for a
    ///   device without sound, or the launch's error.
    public static func start(
        on link: CastDeviceLink, configuration: Configuration = Configuration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> DesktopSoundMirror {
        let capture = try DesktopAudioCapture(configuration: configuration.sound)
        let audio: AudioCastSession
        do {
            audio = try await AudioCastSession.start(
                through: link, audio: configuration.audio, targetDelay: configuration.targetDelay,
                reconnection: configuration.reconnection, clock: clock)
        } catch {
            capture.stop()
            throw error
        }
        do {
            try capture.start(streamingTo: audio.session)
        } catch {
            capture.stop()
            await audio.end()
            throw error
        }
        return DesktopSoundMirror(capture: capture, audio: audio)
    }

    /// Why sending ended by itself, or `nil` while it runs (a session
    /// reconnecting still runs).
    public var endReason: EndReason? {
        get async {
            if case .ended(let reason) = self.audio.session.state { return .sessionEnded(reason) }
            if self.capture.hasEnded { return .captureEnded(await self.capture.finished()) }
            return nil
        }
    }

    /// Stops recording, lets what was sent play out while the session runs
    /// (`AudioCastSession.playOut(within:)`), and ends it — stopping the
    /// device's app unless `stoppingApplication` is `false`.
    public func stop(stoppingApplication: Bool = true) async -> Outcome {
        self.capture.stop()
        let failure = await self.capture.finished()
        await self.audio.playOut()
        let statistics = self.audio.session.currentStatistics
        let running = self.audio.session.state != .ended(.connectionLost)
        await self.audio.end(stoppingApplication: stoppingApplication && running)
        return Outcome(statistics: statistics, failure: failure)
    }
}
