import CastChannels
import CastRemoteDisplay
import Testing

@_spi(Receiver) @testable import CastStreaming

/// Seed 002: when an offer cannot be sent, the call says why and sends
/// nothing — each rule of `RemoteDisplayConfiguration.validated()`, a
/// channel not attached to an app, a receiver channel not attached to a
/// connection — and `isRemoteDisplaySupported` answers directly (row 20).
@Suite(.timeLimit(.minutes(1))) struct OfferErrorsTests {
    static let valid = RemoteDisplayConfiguration(
        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)])

    /// Each broken rule, with the words its message carries.
    static let broken: [(String, @Sendable (inout RemoteDisplayConfiguration) -> Void)] = [
        ("at least one resolution", { $0.resolutions = [] }),
        ("first-frame deadline", { $0.firstFrameDeadline = .zero }),
        ("each video codec once", { $0.videoCodecs = [.vp8, .vp8] }),
        (
            "video, audio or both",
            {
                $0.videoCodecs = []
                $0.audio = nil
            }
        ),
        ("must be even", { $0.resolutions = [RemoteDisplayConfiguration.Resolution(width: 641, height: 360)] }),
        ("must be even", { $0.resolutions = [RemoteDisplayConfiguration.Resolution(width: 8_192, height: 360)] }),
        ("outside 1…120", { $0.maximumFrameRate = 0 }),
        ("outside 1…120", { $0.maximumFrameRate = 240 }),
        (
            "not a range",
            {
                $0.minimumVideoBitrate = 5_000_000
                $0.maximumVideoBitrate = 1_000_000
            }
        ),
        ("1 or 2 channels", { $0.audio = RemoteDisplayConfiguration.Audio(channelCount: 6) }),
        ("audio bitrate", { $0.audio = RemoteDisplayConfiguration.Audio(bitrate: 1) }),
        ("target delay", { $0.targetDelay = .seconds(60) }),
        ("app id is empty", { $0.applicationID = "" }),
    ]

    @Test func everyRuleOfTheConfigurationHasItsOwnMessage() throws {
        #expect(throws: Never.self) { try Self.valid.validated() }
        for (words, breaking) in Self.broken {
            var configuration = Self.valid
            breaking(&configuration)
            let error = #expect(throws: CastRemoteDisplayError.self) { try configuration.validated() }
            #expect(error?.code == .invalidConfiguration, "\(words)")
            #expect(error?.message.contains(words) == true, "\(words): \(String(describing: error))")
        }
    }

    /// A broken configuration is refused by `beginSession` before anything is
    /// checked or sent; a valid one on a channel attached to no app is `notConnected`.
    @Test func beginSessionSaysWhyBeforeSending() async throws {
        let channel = try #require(RemoteDisplayChannel())
        var broken = Self.valid
        broken.resolutions = []
        let invalid = await #expect(throws: CastRemoteDisplayError.self) {
            _ = try await channel.beginSession(configuration: broken)
        }
        #expect(invalid?.code == .invalidConfiguration)
        let detached = await #expect(throws: CastRemoteDisplayError.self) {
            _ = try await channel.beginSession(configuration: Self.valid)
        }
        #expect(detached?.code == .notConnected)
        #expect(channel.currentSession == nil)
    }

    /// `launchSession` on a receiver channel attached to no connection: `notConnected`, nothing launched.
    @Test func launchSessionNeedsAnAttachedReceiver() async throws {
        let channel = try #require(RemoteDisplayChannel())
        let error = await #expect(throws: CastRemoteDisplayError.self) {
            _ = try await channel.launchSession(configuration: Self.valid, on: ReceiverChannel())
        }
        #expect(error?.code == .notConnected)
        var broken = Self.valid
        broken.applicationID = ""
        let invalid = await #expect(throws: CastRemoteDisplayError.self) {
            _ = try await channel.launchSession(configuration: broken, on: ReceiverChannel())
        }
        #expect(invalid?.code == .invalidConfiguration)
    }

    /// The probe (one VP8 and one Opus frame, encoded once) says yes on a
    /// machine with libvpx and libopus, says it again without probing anew,
    /// and channels can be made.
    @Test func remoteDisplayIsSupportedHere() {
        #expect(RemoteDisplayChannel.isRemoteDisplaySupported)
        #expect(RemoteDisplayChannel.isRemoteDisplaySupported)
        #expect(RemoteDisplayChannel() != nil)
    }

    /// A channel made without video encoders (what a sound-only app links)
    /// refuses a configuration with video before sending, in a sentence that
    /// says what to use; sound alone goes on to need an attached app.
    @Test func aChannelWithoutVideoEncodersRefusesVideo() async throws {
        let channel = try #require(RemoteDisplayChannel(videoEncoders: .none))
        #expect(!channel.videoEncoders.encodesVideo)
        let refused = await #expect(throws: CastRemoteDisplayError.self) {
            _ = try await channel.beginSession(configuration: Self.valid)
        }
        #expect(refused?.code == .codecFailure)
        #expect(refused?.message.contains("encodes no video") == true)
        let audio = await #expect(throws: CastRemoteDisplayError.self) {
            _ = try await channel.beginSession(configuration: .audioOnly())
        }
        #expect(audio?.code == .notConnected)
    }
}
