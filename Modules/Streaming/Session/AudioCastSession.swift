public import CastChannels
import CastCommon
public import CastLogging
public import CastTransport

/// Sound to a Cast speaker or speaker group with Cast Streaming's latency
/// (hundreds of milliseconds, not the media player's seconds): an
/// audio-only session of the audio mirroring app.
///
/// ``start(on:audio:targetDelay:logger:)`` launches `85CDB22F` and, on a
/// device without it, the screen mirroring app `0F5096E8` — both with an
/// OFFER that holds the Opus stream alone, so a speaker never gets a video
/// stream. Chrome chooses the same way: the audio app for sinks without
/// `video_out`, and the session type from the device, not the app id
/// (Docs/spec/cast-streaming.md §6.1). The sound is sent as Remote Display
/// sends it: AES-CTR, retransmission, the target delay changeable in band.
///
/// Feed it through an ``AudioInput`` from ``makeAudioInput(sourceSampleRate:sourceChannelCount:)``
/// and call ``audioWasQueued()`` after each `enqueue`. A dropped control
/// connection interrupts the session; attaching ``channel`` to the new
/// connection resumes the same stream, without a new launch.
///
/// To have that done for you, run the sound inside a CastKit session: start
/// one with `receiverApplicationID` set to `CastApplicationID.audioMirroring`,
/// add a ``RemoteDisplayChannel`` to it and begin
/// ``RemoteDisplayConfiguration/audioOnly(_:targetDelay:applicationID:)`` on
/// that channel. When the speaker drops off the network and comes back, the
/// session manager reconnects and re-attaches the channel, and the same
/// stream goes on.
public final class AudioCastSession: Sendable {
    /// The channel the session runs on.
    public let channel: RemoteDisplayChannel
    /// The Cast Streaming session: its state, statistics and target delay.
    public let session: RemoteDisplaySession
    /// A speaker group's members and their volumes, when the device is a
    /// group (a device that is none lists no members, or does not answer):
    /// for a session started through a link, attached to the device's
    /// platform and to each new connection after a loss (and the members
    /// asked again there, if they were asked for), so its `events()` go on;
    /// unattached otherwise. It sends nothing until asked (`requestStatus()`).
    public let group = MultizoneChannel(requestTimeout: .seconds(2))

    private let keeper: ConnectionKeeper?

    private init(channel: RemoteDisplayChannel, session: RemoteDisplaySession, keeper: ConnectionKeeper? = nil) {
        self.channel = channel
        self.session = session
        self.keeper = keeper
    }

    /// The receiver app that plays the sound: `85CDB22F`, or `0F5096E8`
    /// where the device lacks the audio app.
    public var applicationID: String { self.session.configuration.applicationID }

    /// Launches the audio mirroring app on the device `receiver` is
    /// attached to (or the screen mirroring app where it is missing) and
    /// begins an audio-only session.
    ///
    /// - Parameters:
    ///   - receiver: the receiver channel of the device's connection.
    ///   - audio: channels and Opus bitrate. Default stereo at 128 kbit/s.
    ///   - targetDelay: how long after capture the speaker plays the sound. Default 400 ms.
    ///   - logger: the log hub; `CastLogger.shared` by default.
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/codecFailure``
    ///   when Opus does not work here;
    ///   ``CastRemoteDisplayError/Code-swift.struct/launchFailed`` when the
    ///   device runs neither app; what
    ///   ``RemoteDisplayChannel/launchSession(configuration:on:)`` throws.
    public static func start(
        on receiver: ReceiverChannel, audio: RemoteDisplayConfiguration.Audio = .init(),
        targetDelay: Duration = .milliseconds(400), logger: CastLogger = .shared
    ) async throws(CastRemoteDisplayError) -> AudioCastSession {
        guard let channel = RemoteDisplayChannel(logger: logger, videoEncoders: .none) else {
            throw CastRemoteDisplayError(.codecFailure, "this machine cannot encode Opus")
        }
        let log = logger.makeLogger(subsystem: "RemoteDisplay.Audio")
        do {
            let session = try await channel.launchSession(
                configuration: .audioOnly(audio, targetDelay: targetDelay), on: receiver)
            return AudioCastSession(channel: channel, session: session)
        } catch  where Self.isMissingApplication(error) {
            log.notice(
                "the device has no audio mirroring app; sending the sound to screen mirroring",
                metadata: ["cast.app": "\(CastApplicationID.audioMirroring)"])
        }
        let session = try await channel.launchSession(
            configuration: .audioOnly(audio, targetDelay: targetDelay, applicationID: CastApplicationID.mirroring),
            on: receiver)
        return AudioCastSession(channel: channel, session: session)
    }

    /// Launches the audio app on `link`'s device, as
    /// ``start(on:audio:targetDelay:logger:)`` does, and keeps the session's
    /// control connection: when it drops (a speaker falling off Wi-Fi), the
    /// device is connected again with `reconnection`'s back-off on `clock`,
    /// the app's transport reopened and ``channel`` attached there; the same
    /// stream goes on, nothing launched again. ``events()`` tells of it;
    /// when the device does not come back the session ends with
    /// ``RemoteDisplaySessionEndReason/connectionLost``. ``end(stoppingApplication:)``
    /// closes the links it made (`link` stays the caller's).
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/noSoundOutput``
    ///   when the device's capabilities lack audio out, before anything is
    ///   launched; otherwise what ``start(on:audio:targetDelay:logger:)`` throws.
    public static func start(
        through link: CastDeviceLink, audio: RemoteDisplayConfiguration.Audio = .init(),
        targetDelay: Duration = .milliseconds(400), reconnection: ReconnectPolicy = AudioCastSession.reconnection,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws(CastRemoteDisplayError) -> AudioCastSession {
        try RemoteDisplayChannel.require(
            link.device.capabilities.contains(.audioOut), on: link, or: .noSoundOutput, "has no sound output")
        let started = try await Self.start(
            on: link.receiver, audio: audio, targetDelay: targetDelay, logger: link.logger)
        let keeper = ConnectionKeeper(link: link, policy: reconnection, clock: clock)
        let audio = AudioCastSession(channel: started.channel, session: started.session, keeper: keeper)
        audio.group.attach(to: link.connection, destinationID: CastEndpointID.receiverPlatform, logger: link.logger)
        keeper.watch(audio.session, on: audio.channel, group: audio.group)
        return audio
    }

    /// How a session started through a link reconnects: at once, then
    /// after 1 s growing to 5 s, nine attempts — about half a minute.
    public static let reconnection = ReconnectPolicy(
        initialDelay: .seconds(1), multiplier: 1.5, maximumDelay: .seconds(5), jitter: 0.2, maximumAttempts: 9)

    /// What happens to the control connection from now on (a session started
    /// through a link); a stream that ends at once otherwise.
    public func events() -> AsyncStream<AudioCastSessionEvent> {
        guard let keeper = self.keeper else { return AsyncStream { $0.finish() } }
        return keeper.events.subscribe()
    }

    /// Whether `error` is the receiver refusing to launch the app (its
    /// LAUNCH_ERROR), not a connection that failed.
    private static func isMissingApplication(_ error: CastRemoteDisplayError) -> Bool {
        guard error.code == .launchFailed else { return false }
        return (error.cause as? CastChannelError)?.code == .launchFailed
    }

    /// An input that converts `Int16`, `Int32` or `Float` audio at any rate
    /// and channel count into the session's Opus format.
    public func makeAudioInput(sourceSampleRate: Int, sourceChannelCount: Int) throws(CastRemoteDisplayError)
        -> AudioInput
    {
        try self.session.makeAudioInput(sourceSampleRate: sourceSampleRate, sourceChannelCount: sourceChannelCount)
    }

    /// Tells the sender that audio was enqueued on an input of this session;
    /// it is encoded and sent on the calling thread before this returns.
    public func audioWasQueued() {
        self.session.audioWasQueued()
    }

    /// Waits until what was sent has played out on the receiver
    /// (``RemoteDisplaySession/playOut(within:)``): before ``end(stoppingApplication:)``,
    /// so that a file's last moments are heard.
    public func playOut(within limit: Duration? = nil) async {
        await self.session.playOut(within: limit)
    }

    /// Ends the session; with `stoppingApplication` (the default), stops
    /// the app by its session id.
    public func end(stoppingApplication: Bool = true) async {
        await self.channel.endSession(stoppingApplication: stoppingApplication)
        self.group.detach()
        await self.keeper?.close()
    }
}
