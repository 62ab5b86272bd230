public import CastChannels
import CastDiscovery
public import CastLogging
public import CastRemoteDisplay
public import CastTransport

/// This machine's screen — a monitor, a window, or what the desktop's
/// portal lets the user pick — and optionally its sound, mirrored to a
/// device: Chrome's "Cast screen" as one SDK type, what `cast screen
/// --capture` runs.
///
/// ```swift
/// let link = try await CastDeviceLink.connect(to: device)
/// let mirror = try await DesktopMirror.start(on: link, configuration: .init(sound: .init()))
/// while await mirror.endReason == nil, !userPressedStop { try await Task.sleep(for: .seconds(1)) }
/// let outcome = await mirror.stop()
/// await link.close()
/// ```
///
/// The device is connected and its mirroring app launched before the
/// capture opens, so a portal's dialog comes only once the device has
/// taken the stream; a capture refused then leaves nothing running.
public final class DesktopMirror: Sendable, CustomStringConvertible {
    /// What to capture and how to send it.
    public struct Configuration: Sendable {
        /// The picture's source, frame rate, cursor and portal token.
        public var capture: ScreenCaptureConfiguration
        /// The desktop's sound to send with it; `nil` for the picture alone.
        public var sound: DesktopAudioConfiguration?
        /// Whether mirroring fails when ``sound`` cannot be recorded (no sound
        /// server answers): `true` (the default) fails; `false` mirrors the
        /// picture alone and tells why in ``DesktopMirror/soundUnavailable``.
        public var requiresSound: Bool
        /// The largest picture sent; a larger source is scaled down to fit,
        /// its shape kept, and the receiver's ANSWER may ask for less.
        /// Default 1920×1080, the most Chrome's mirroring captures
        /// (components/mirroring/service/mirror_settings.cc, `kMaxWidth`, `kMaxHeight`).
        public var maximumResolution: RemoteDisplayConfiguration.Resolution
        /// The highest video bitrate, bit/s. Default 5 Mbit/s.
        public var maximumVideoBitrate: Int
        /// The codecs offered, preferred first. Default VP9, VP8.
        public var videoCodecs: [VideoCodec]
        /// How long after capture the device shows a frame, and whether
        /// that follows the link. Default `RemoteDisplayConfiguration.Latency.normal` (400 ms).
        public var latency: RemoteDisplayConfiguration.Latency

        /// Creates a configuration.
        public init(
            capture: ScreenCaptureConfiguration = ScreenCaptureConfiguration(),
            sound: DesktopAudioConfiguration? = nil,
            requiresSound: Bool = true,
            maximumResolution: RemoteDisplayConfiguration.Resolution = .hd1080,
            maximumVideoBitrate: Int = 5_000_000,
            videoCodecs: [VideoCodec] = [.vp9, .vp8],
            latency: RemoteDisplayConfiguration.Latency = .normal
        ) {
            self.capture = capture
            self.sound = sound
            self.requiresSound = requiresSound
            self.maximumResolution = maximumResolution
            self.maximumVideoBitrate = maximumVideoBitrate
            self.videoCodecs = videoCodecs
            self.latency = latency
        }
    }

    /// Why mirroring ended by itself.
    public enum EndReason: Sendable {
        /// The source went away (its window closed, the portal's stream
        /// stopped) or failed, with the capture's error then.
        case captureEnded(CaptureError?)
        /// The receiver ended the session (its app stopped or was replaced).
        case sessionEnded(RemoteDisplaySessionEndReason)
        /// The connection to the device closed.
        case connectionLost(CastTransportError)
    }

    /// How mirroring went, once stopped.
    public struct Outcome: Sendable {
        /// The session's last statistics.
        public var statistics: RemoteDisplayStatistics
        /// The picture's or the sound's capture error, if either failed.
        public var failure: CaptureError?
    }

    /// The picture's capture: its source, size, statistics, and the portal's restore token.
    public let capture: ScreenCapture
    /// The sound's capture, when the configuration asked for sound and it could be recorded.
    public let sound: DesktopAudioCapture?
    /// Why the sound asked for is not sent, when it was not required
    /// (``Configuration/requiresSound``) and could not be recorded.
    public let soundUnavailable: CaptureError?
    /// The Cast Streaming session: its negotiated configuration and statistics.
    public let session: RemoteDisplaySession
    private let channel: RemoteDisplayChannel
    private let link: CastDeviceLink
    private let clock: any Clock<Duration>

    private init(
        capture: ScreenCapture, sound: (capture: DesktopAudioCapture?, unavailable: CaptureError?),
        session: RemoteDisplaySession, channel: RemoteDisplayChannel, link: CastDeviceLink, clock: any Clock<Duration>
    ) {
        self.capture = capture
        self.sound = sound.capture
        self.soundUnavailable = sound.unavailable
        self.session = session
        self.channel = channel
        self.link = link
        self.clock = clock
    }
}

extension DesktopMirror {
    /// Opens the capture (a portal asks the user now), launches the
    /// device's mirroring app afresh and starts sending.
    ///
    /// - Parameters:
    ///   - link: the device, connected.
    ///   - configuration: what to capture and how to send it.
    ///   - logger: the log hub.
    ///   - clock: where ``stop(stoppingApplication:)`` waits for the last acknowledgements.
    /// - Throws: `CastRemoteDisplayError` `launchFailed` when the device
    ///   has no screen (its capabilities lack video out), `codecFailure`
    ///   when this machine cannot encode, or the launch's error;
    ///   `CaptureError` when the source cannot be captured.
    public static func start(
        on link: CastDeviceLink, configuration: Configuration, logger: CastLogger = .shared,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> DesktopMirror {
        // A device without a screen is refused before the capture opens (a portal would ask first).
        try RemoteDisplayChannel.requireScreen(on: link)
        guard let channel = RemoteDisplayChannel(logger: logger) else {
            throw CastRemoteDisplayError(
                .codecFailure, "this machine cannot run Remote Display: libvpx or libopus does not work")
        }
        // The app is launched before the capture opens: a device that refuses
        // is said before a portal asks the user anything.
        try await channel.launchApplication(CastApplicationID.mirroring, on: link.receiver)
        do {
            return try await Self.stream(on: channel, link: link, configuration: configuration, clock: clock)
        } catch {
            // Whatever failed after the launch (the capture, the sound, the OFFER), the app is stopped.
            await channel.endSession(stoppingApplication: true)
            throw error
        }
    }

    /// Opens the capture and the sound and begins the session on the app launched.
    private static func stream(
        on channel: RemoteDisplayChannel, link: CastDeviceLink, configuration: Configuration,
        clock: any Clock<Duration>
    ) async throws -> DesktopMirror {
        let capture = try await ScreenCapture.open(configuration: configuration.capture)
        do {
            let sound = try Self.openSound(configuration)
            let session = try await channel.beginSession(
                configuration: Self.streaming(
                    configuration, sourceSize: capture.sourceSize, withSound: sound.capture != nil))
            let mirror = DesktopMirror(
                capture: capture, sound: sound, session: session, channel: channel, link: link, clock: clock)
            do {
                try capture.start(streamingTo: session)
                try sound.capture?.start(streamingTo: session)
            } catch {
                _ = await mirror.stop()
                throw error
            }
            return mirror
        } catch {
            capture.stop()
            throw error
        }
    }

    /// The sound's recording, when asked for; when it cannot be opened and
    /// is not required, none and why.
    private static func openSound(_ configuration: Configuration) throws(CaptureError) -> (
        capture: DesktopAudioCapture?, unavailable: CaptureError?
    ) {
        guard let sound = configuration.sound else { return (nil, nil) }
        do {
            return (try DesktopAudioCapture(configuration: sound), nil)
        } catch  where !configuration.requiresSound {
            return (nil, error)
        }
    }

    /// The session's configuration: the source scaled to fit, the codecs and delay asked for.
    private static func streaming(
        _ configuration: Configuration, sourceSize: RemoteDisplayConfiguration.Resolution, withSound: Bool
    ) -> RemoteDisplayConfiguration {
        var streaming = RemoteDisplayConfiguration(
            resolutions: [sourceSize.scaledToFit(within: configuration.maximumResolution)],
            maximumFrameRate: configuration.capture.frameRate, maximumVideoBitrate: configuration.maximumVideoBitrate,
            videoCodecs: configuration.videoCodecs, audio: withSound ? RemoteDisplayConfiguration.Audio() : nil)
        streaming.setLatency(configuration.latency)
        return streaming
    }

    /// What is mirrored and how, for people: "screen (2560x1440) as 1920x1080
    /// VP9 at up to 30 fps with sound", "the TV's own screen (1920x1080) as …".
    public var description: String {
        let size = self.capture.sourceSize
        let sent = self.session.configuration
        let source = self.capture.configuration.source
        let what = if case .virtualMonitor = source { "the TV's own screen" } else { "\(source)" }
        return "\(what) (\(size.width)x\(size.height)) as \(sent.resolution.width)x\(sent.resolution.height) "
            + "\(sent.videoCodec) at up to \(sent.maximumFrameRate) fps\(self.sound == nil ? "" : " with sound")"
    }

    /// Why mirroring ended by itself, or `nil` while it runs: ask it as
    /// often as the app shows statistics.
    public var endReason: EndReason? {
        get async {
            if case .disconnected(let reason) = await self.link.connection.currentState {
                return .connectionLost(reason)
            }
            if case .ended(let reason) = self.session.state { return .sessionEnded(reason) }
            if self.capture.hasEnded { return .captureEnded(await self.capture.finished()) }
            return nil
        }
    }

    /// Stops capturing, waits for the last acknowledgements (300 ms) while
    /// the device is still there, and ends the session — stopping the
    /// device's app unless `stoppingApplication` is `false`.
    public func stop(stoppingApplication: Bool = true) async -> Outcome {
        self.capture.stop()
        self.sound?.stop()
        let soundFailure = await self.sound?.finished()
        let captureFailure = await self.capture.finished()
        let connected: Bool
        if case .disconnected = await self.link.connection.currentState {
            connected = false
        } else {
            connected = true
            try? await self.clock.sleep(for: .milliseconds(300))
        }
        let statistics = self.session.currentStatistics
        await self.channel.endSession(stoppingApplication: stoppingApplication && connected)
        return Outcome(statistics: statistics, failure: captureFailure ?? soundFailure)
    }
}
