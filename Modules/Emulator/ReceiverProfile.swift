@_spi(Receiver) public import CastDiscovery

/// The behaviour of one kind of real receiver, for the emulator to play:
/// how it answers LAUNCH and STOP, whether and how it PINGs, what its status
/// and its Cast Streaming ANSWER look like, and how it presents itself on
/// the network. Every choice names the receiver code or the captured payload
/// (`shared/conformance/`, README "Receiver profiles") it comes from.
///
/// ```swift
/// let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(profile: .openScreen))
/// ```
public struct ReceiverProfile: Sendable {
    /// How the receiver answers a successful LAUNCH.
    public enum LaunchReply: Sendable, Hashable {
        /// RECEIVER_STATUS carrying the LAUNCH's `requestId`, and the
        /// broadcast to the other senders (a Chromecast: conformance 007).
        case receiverStatus
        /// The broadcast first, then LAUNCH_STATUS `USER_ALLOWED` keyed by
        /// `launchRequestId`, then RECEIVER_STATUS with the `requestId`
        /// (Open Screen cast/receiver/application_agent.cc:376, :285-288, :183-190).
        case launchStatusThenReceiverStatus
        /// LAUNCH_STATUS keyed by `launchRequestId`, then only the
        /// `requestId` 0 broadcast, to every sender (a Nest Hub: conformance 029, 030).
        case launchStatusThenBroadcast
    }

    /// How the receiver answers a successful STOP.
    public enum StopReply: Sendable, Hashable {
        /// RECEIVER_STATUS with the STOP's `requestId`, and the broadcast
        /// (Chromecasts: pychromecast's `quit_app` and Chrome's
        /// `StopSession` wait for that reply).
        case replyAndBroadcast
        /// Only the `requestId` 0 broadcast (Open Screen
        /// application_agent.cc:293-304, :429-437).
        case broadcastOnly
    }

    /// The device volume model RECEIVER_STATUS reports.
    public struct VolumeModel: Sendable, Hashable {
        /// `controlType`: `attenuation`, `master` or `fixed`.
        public var controlType: String
        /// `stepInterval`.
        public var stepInterval: Double

        /// Creates a volume model.
        public init(controlType: String, stepInterval: Double) {
            self.controlType = controlType
            self.stepInterval = stepInterval
        }
    }

    /// The name `cast-receiver --profile` takes, e.g. `chromecast-google-tv`.
    public var name: String
    /// One line on what it plays and where that comes from.
    public var summary: String
    /// The apps it can launch.
    public var applications: [EmulatedApplication]
    /// How LAUNCH is answered.
    public var launchReply: LaunchReply
    /// How STOP is answered.
    public var stopReply: StopReply
    /// Source and destination of the PINGs it sends after silence; `nil`
    /// when it sends none (Open Screen's receiver only answers PINGs).
    public var pingIDs: (source: String, destination: String)?
    /// Whether it answers CONNECT with CONNECTED when the sender names a
    /// protocol version (Open Screen connection_namespace_handler.cc:224-229).
    public var answersConnect: Bool
    /// Whether SET_VOLUME works; when not, it is an INVALID_REQUEST (Open Screen's has none).
    public var supportsVolume: Bool
    /// Whether the idle screen is listed as a running app; newer devices
    /// leave `applications` out when idle (conformance 011, 017).
    public var listsIdleScreen: Bool
    /// The volume model.
    public var volume: VolumeModel
    /// How OFFERs are answered: streams, `display`, constraints.
    public var streaming: StreamingReceiverConfiguration
    /// What the mDNS record says: model name and capabilities.
    public var modelName: String
    /// The `ca` capabilities advertised.
    public var capabilities: CastDeviceCapabilities
    /// Who made the device, as its setup server's `device_info.manufacturer`
    /// says. Default `Google Inc.`, what Google's devices report (pychromecast's
    /// `const.py`, `MF_GOOGLE`, for every Google model it lists).
    public var manufacturer = "Google Inc."

    /// Creates a profile.
    public init(
        name: String, summary: String, applications: [EmulatedApplication], launchReply: LaunchReply,
        stopReply: StopReply, pingIDs: (source: String, destination: String)?, answersConnect: Bool,
        supportsVolume: Bool, listsIdleScreen: Bool, volume: VolumeModel, streaming: StreamingReceiverConfiguration,
        modelName: String, capabilities: CastDeviceCapabilities
    ) {
        self.name = name
        self.summary = summary
        self.applications = applications
        self.launchReply = launchReply
        self.stopReply = stopReply
        self.pingIDs = pingIDs
        self.answersConnect = answersConnect
        self.supportsVolume = supportsVolume
        self.listsIdleScreen = listsIdleScreen
        self.volume = volume
        self.streaming = streaming
        self.modelName = modelName
        self.capabilities = capabilities
    }

    /// How long Google's receivers let a Cast Streaming session go without a
    /// frame before they end it (the SDK's Remote Display guide, 15 s).
    public static let googleFirstFrameDeadline: Duration = .seconds(15)

    /// Where a Chromecast's own PINGs come from and go to (go-chromecast's
    /// `RespondToPing`; a C client's `ccsendheartbeatmessage`).
    public static let chromecastPingID = "Tr@n$p0rt-0"

    /// Chromecast with Google TV, the default: LAUNCH and STOP answered with
    /// `requestId`, PINGs as `Tr@n$p0rt-0`, `fixed` volume (the TV's, over
    /// CEC) and no idle app (conformance 011), and the ANSWER of conformance
    /// 073: a 3840×2160 display at "60" frames per second that the sender
    /// must letterbox (`scaling: "sender"`), no constraints. It decodes
    /// H.264, VP9 and VP8 (Google's "Supported media for Google Cast":
    /// Chromecast with Google TV, H.264 High, VP9 profiles 0 and 2; VP8 as
    /// every Cast device), taken in Open Screen's receiver order
    /// (H.264 over VP9 over VP8, mirroring_application.cc).
    public static let chromecastWithGoogleTV = ReceiverProfile(
        name: "chromecast-google-tv",
        summary: "Chromecast with Google TV: replies to LAUNCH/STOP, PINGs, 4K display the sender letterboxes to",
        applications: EmulatedApplication.standard + [.audioMirroring],
        launchReply: .receiverStatus, stopReply: .replyAndBroadcast,
        pingIDs: (chromecastPingID, chromecastPingID), answersConnect: false, supportsVolume: true,
        listsIdleScreen: false, volume: VolumeModel(controlType: "fixed", stepInterval: 0.04),
        streaming: StreamingReceiverConfiguration(
            display: StreamingReceiverConfiguration.Display(
                width: 3_840, height: 2_160, frameRate: 60, scaling: .sender),
            videoCodecs: [.h264, .vp9, .vp8], firstFrameDeadline: googleFirstFrameDeadline),
        modelName: "Chromecast", capabilities: [.videoOut, .audioOut])

    /// An earlier Chromecast (2nd and 3rd generation): lists the Backdrop idle
    /// screen (`isIdleScreen`, conformance 002), `attenuation` volume in 0.04
    /// steps (conformance 002), replies to LAUNCH and STOP, and an ANSWER
    /// with neither `display` nor constraints (conformance 071).
    public static let chromecast = ReceiverProfile(
        name: "chromecast",
        summary: "Chromecast (2nd/3rd gen): Backdrop idle screen, attenuation volume, plain ANSWER",
        applications: EmulatedApplication.standard + [.audioMirroring],
        launchReply: .receiverStatus, stopReply: .replyAndBroadcast,
        pingIDs: (chromecastPingID, chromecastPingID), answersConnect: false, supportsVolume: true,
        listsIdleScreen: true, volume: VolumeModel(controlType: "attenuation", stepInterval: 0.04),
        streaming: StreamingReceiverConfiguration(firstFrameDeadline: googleFirstFrameDeadline),
        modelName: "Chromecast", capabilities: [.videoOut, .audioOut])

    /// A Nest speaker (Google Home, Nest Audio): audio only — its ANSWER
    /// takes the Opus stream alone — `master` volume in 0.02 steps and no
    /// idle app (conformance 017).
    public static let nestSpeaker = ReceiverProfile(
        name: "nest-speaker",
        summary: "Nest speaker: audio only (ANSWER takes Opus alone), master volume, no idle app",
        applications: [.defaultMediaReceiver, .audioMirroring, .backdrop],
        launchReply: .receiverStatus, stopReply: .replyAndBroadcast,
        pingIDs: (chromecastPingID, chromecastPingID), answersConnect: false, supportsVolume: true,
        listsIdleScreen: false, volume: VolumeModel(controlType: "master", stepInterval: 0.02),
        streaming: StreamingReceiverConfiguration(
            answer: .acceptAudioOnly, firstFrameDeadline: googleFirstFrameDeadline),
        modelName: "Google Home", capabilities: [.audioOut])

    /// A speaker group's endpoint: audio only, `master` volume in 0.05
    /// steps (conformance 026), multizone capability.
    public static let speakerGroup = ReceiverProfile(
        name: "speaker-group",
        summary: "Speaker group endpoint: audio only, multizone, master volume",
        applications: [.defaultMediaReceiver, .audioMirroring, .backdrop],
        launchReply: .receiverStatus, stopReply: .replyAndBroadcast,
        pingIDs: (chromecastPingID, chromecastPingID), answersConnect: false, supportsVolume: true,
        listsIdleScreen: false, volume: VolumeModel(controlType: "master", stepInterval: 0.05),
        streaming: StreamingReceiverConfiguration(
            answer: .acceptAudioOnly, firstFrameDeadline: googleFirstFrameDeadline),
        modelName: "Google Cast Group", capabilities: [.audioOut, .multizoneGroup])

    /// A Nest Hub: LAUNCH answered by LAUNCH_STATUS keyed by
    /// `launchRequestId` and then only a broadcast (conformance 029);
    /// `master` volume (conformance 022).
    public static let nestHub = ReceiverProfile(
        name: "nest-hub",
        summary: "Nest Hub: LAUNCH answered by LAUNCH_STATUS (launchRequestId) and a broadcast only",
        applications: EmulatedApplication.standard + [.audioMirroring],
        launchReply: .launchStatusThenBroadcast, stopReply: .replyAndBroadcast,
        pingIDs: (chromecastPingID, chromecastPingID), answersConnect: false, supportsVolume: true,
        listsIdleScreen: false, volume: VolumeModel(controlType: "master", stepInterval: 0.02),
        streaming: StreamingReceiverConfiguration(firstFrameDeadline: googleFirstFrameDeadline),
        modelName: "Google Nest Hub", capabilities: [.videoOut, .audioOut])

    /// Open Screen's standalone receiver (cast/receiver, cast/streaming):
    /// only the two mirroring apps, LAUNCH_STATUS with `launchRequestId`,
    /// STOP by broadcast only, no PINGs of its own, CONNECTED when asked
    /// with a protocol version, no SET_VOLUME, `attenuation` volume in 0.05
    /// steps, an ANSWER without `display` or constraints
    /// (mirroring_application.cc:71-77), and its video codec order among
    /// those this emulator decodes: AV1, H.264, VP9, then VP8 (it prefers
    /// HEVC > AV1 > H.264 > VP9 > VP8 when built with FFmpeg,
    /// mirroring_application.cc:72-74; ../shared/peers.md).
    public static let openScreen = ReceiverProfile(
        name: "open-screen",
        summary: "Open Screen standalone receiver: mirroring apps only, STOP by broadcast, no PINGs, no SET_VOLUME",
        applications: [.mirroring, .audioMirroring],
        launchReply: .launchStatusThenReceiverStatus, stopReply: .broadcastOnly,
        pingIDs: nil, answersConnect: true, supportsVolume: false,
        listsIdleScreen: false, volume: VolumeModel(controlType: "attenuation", stepInterval: 0.05),
        streaming: StreamingReceiverConfiguration(videoCodecs: [.av1, .h264, .vp9, .vp8]),
        modelName: "cast_standalone_receiver", capabilities: [.videoOut, .audioOut])

    /// Every profile, the default first.
    public static let all: [ReceiverProfile] = [
        .chromecastWithGoogleTV, .chromecast, .nestSpeaker, .speakerGroup, .nestHub, .openScreen,
    ]

    /// The profile called `name`, if there is one.
    public static func named(_ name: String) -> ReceiverProfile? {
        Self.all.first { $0.name == name }
    }
}
