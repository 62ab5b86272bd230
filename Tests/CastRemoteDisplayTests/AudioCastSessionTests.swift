import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
import Foundation
import Testing

extension RemoteDisplayEndToEnd {
    /// Sound to speakers: the audio mirroring app, an Opus-only OFFER, the
    /// fallback to screen mirroring, and a 1 kHz tone decoded at its pitch and level.
    @Suite struct AudioCastSessionTests {
        /// The `supportedStreams` types of every OFFER the emulator received while `body` ran.
        static func offeredStreams(_ fixture: StreamingFixture, during body: () async throws -> Void) async throws
            -> [[String]]
        {
            let messages = try await fixture.messagesReceived(on: CastNamespace.webrtc, during: body)
            return messages.compactMap { message -> [String]? in
                guard let json = try? JSONValue(parsing: message.text ?? ""), json["type"] == "OFFER" else {
                    return nil
                }
                let streams = json["offer"]?["supportedStreams"]?.arrayValue ?? []
                return streams.compactMap { $0["type"]?.stringValue }
            }
        }

        /// Starts a session on `fixture`'s receiver: `app` runs it, and its one OFFER has the audio stream alone.
        static func startAudioOnly(_ fixture: StreamingFixture, expecting app: String) async throws -> AudioCastSession
        {
            var audio: AudioCastSession?
            let offers = try await Self.offeredStreams(fixture) {
                audio = try await AudioCastSession.start(on: fixture.receiver, logger: StreamingFixture.logger)
            }
            let session = try #require(audio)
            #expect(offers == [["audio_source"]])
            #expect(session.applicationID == app)
            #expect(fixture.emulator.runningApplication?.application.appID == app)
            return session
        }

        /// A Nest speaker, and Open Screen's receiver (which registers `85CDB22F` beside
        /// `0F5096E8`, Docs/spec/cast-streaming.md §6.2): `85CDB22F` launched, an OFFER with the
        /// Opus stream alone, and the tone decoded at 1 kHz and −9 dBFS; ending stops the app.
        @Test(arguments: [ReceiverProfile.nestSpeaker, .openScreen])
        func aSpeakerGetsAnOpusOnlyOfferOnTheAudioAppAndPlaysTheTone(profile: ReceiverProfile) async throws {
            try await StreamingFixture.with(
                streaming: nil, profile: profile, application: profile.applications[0].appID
            ) { fixture in
                let tone = DecodedTone(from: fixture.emulator)
                let session = try await Self.startAudioOnly(fixture, expecting: CastApplicationID.audioMirroring)
                #expect(session.session.audioQueue != nil)
                try await streamTone(seconds: 2, to: session.session)
                let report = try await fixture.report { ($0.audio?.framesDecoded ?? 0) >= 150 }
                print(
                    "\(profile.name): \(tone.frequency) Hz at \(tone.level) dBFS, audio latency p50 "
                        + "\(String(describing: report?.audio?.latencyP50)) p99 \(String(describing: report?.audio?.latencyP99))"
                )
                #expect(report?.video == nil)
                #expect(abs(tone.frequency - 1_000) < 5, "\(tone.frequency) Hz")
                #expect(abs(tone.level - -9.03) < 1, "\(tone.level) dBFS")
                await session.end()
                #expect(session.session.state == .ended(.stopped))
                #expect(fixture.emulator.runningApplication == nil)
            }
        }

        /// A device without the audio app: screen mirroring, still with the Opus stream alone.
        @Test func aDeviceWithoutTheAudioAppGetsTheSoundOnScreenMirroringWithoutVideo() async throws {
            var profile = ReceiverProfile.chromecast
            profile.applications = EmulatedApplication.standard
            try await StreamingFixture.with(
                streaming: nil, profile: profile, application: CastApplicationID.defaultMediaReceiver
            ) { fixture in
                let tone = DecodedTone(from: fixture.emulator)
                let session = try await Self.startAudioOnly(fixture, expecting: CastApplicationID.mirroring)
                try await streamTone(seconds: 1.5, to: session.session)
                // Played out: every frame sent has reached the receiver and been decoded.
                await session.playOut()
                let sent = session.session.currentStatistics.audio?.framesSent ?? 0
                #expect(sent >= 100)
                #expect(fixture.emulator.streamingReport?.audio?.framesDecoded == sent)
                let report = try await fixture.report { ($0.audio?.framesDecoded ?? 0) >= 100 }
                #expect(report?.video == nil)
                #expect(abs(tone.frequency - 1_000) < 5, "\(tone.frequency) Hz")
                await session.end()
            }
        }

        @Test func aDeviceWithNeitherAppIsATypedLaunchFailure() async throws {
            var profile = ReceiverProfile.nestSpeaker
            profile.applications = [.defaultMediaReceiver]
            try await StreamingFixture.with(
                streaming: nil, profile: profile, application: CastApplicationID.defaultMediaReceiver
            ) { fixture in
                let error = await caughtError(CastRemoteDisplayError.self) {
                    _ = try await AudioCastSession.start(on: fixture.receiver, logger: StreamingFixture.logger)
                }
                #expect(error?.code == .launchFailed)
                #expect((error?.cause as? CastChannelError)?.code == .launchFailed)
                #expect(error?.message.contains(CastApplicationID.mirroring) == true, "\(String(describing: error))")
            }
        }

        /// The control connection drops and comes back: the same stream goes on, nothing is launched again.
        /// (And the emulator's report, started anew meanwhile, counts only what came after.)
        @Test func aDroppedConnectionResumesTheSameStreamWithoutARelaunch() async throws {
            try await StreamingFixture.with(
                streaming: nil, profile: .nestSpeaker, application: CastApplicationID.defaultMediaReceiver
            ) { fixture in
                let audio = try await AudioCastSession.start(on: fixture.receiver, logger: StreamingFixture.logger)
                let running = try #require(fixture.emulator.runningApplication)
                try await streamTone(seconds: 0.5, to: audio.session)
                audio.channel.detach()
                #expect(audio.session.state == .interrupted)
                audio.channel.attach(
                    to: fixture.connection, destinationID: running.transportID, logger: StreamingFixture.logger)
                #expect(audio.session.state == .active)
                // The half second's frames, then the report started anew (the emulator's instrumentation).
                let earlier = try await fixture.report { ($0.audio?.framesDecoded ?? 0) >= 40 }
                #expect((earlier?.audio?.framesDecoded ?? 0) >= 40)
                fixture.emulator.resetStreamingReport()
                #expect((fixture.emulator.streamingReport?.audio?.framesDecoded ?? 0) < 20, "the report starts anew")
                try await streamTone(seconds: 1, to: audio.session)
                let report = try await fixture.report { ($0.audio?.framesDecoded ?? 0) >= 80 }
                #expect((report?.audio?.framesDecoded ?? 0) >= 80)
                #expect(fixture.emulator.runningApplication?.sessionID == running.sessionID)
                await audio.end()
            }
        }

        /// Audio alone, the app's thread encodes and sends (no encoder thread
        /// wakes per 10 ms); once it stops, the network thread takes the
        /// feedback over, so the frames lost at the end are resent and every
        /// frame sent is acknowledged.
        @Test func theAppsThreadSendsAndTheNetworkThreadRepairsLossAfterItStops() async throws {
            var streaming = ReceiverProfile.nestSpeaker.streaming
            streaming.impairment = NetworkImpairment(lossRate: 0.2, seed: 3)
            try await StreamingFixture.with(
                streaming: streaming, profile: .nestSpeaker, application: CastApplicationID.defaultMediaReceiver
            ) { fixture in
                // Sessions run one at a time (StreamingFixture); an earlier one's threads may still be ending.
                _ = try await senderThreadsEnded()
                let audio = try await AudioCastSession.start(on: fixture.receiver, logger: StreamingFixture.logger)
                try await streamTone(seconds: 0.5, to: audio.session)
                let threads = try await processThreadNames(within: .seconds(10)) { $0.contains("cast.network") }
                #expect(threads.filter { $0 == "cast.network" }.count == 1, "threads: \(threads)")
                #expect(!threads.contains("cast.encoder"), "threads: \(threads)")
                // Nothing more from the app: the network thread alone answers the receiver now.
                var statistics = audio.session.currentStatistics.audio
                let deadline = ContinuousClock.now + .seconds(10)
                while statistics.map({ $0.framesSent + $0.framesDropped < 50 || $0.framesAcknowledged < $0.framesSent })
                    ?? true,
                    ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(100))
                    statistics = audio.session.currentStatistics.audio
                }
                let sent = try #require(statistics)
                #expect(sent.framesSent + sent.framesDropped == 50)
                #expect(sent.framesSent > 40)
                #expect(sent.framesAcknowledged == sent.framesSent)
                #expect(sent.retransmittedPackets > 0)
                await audio.end()
            }
        }

        @Test func aConfigurationWithoutVideoOrAudioIsInvalid() async throws {
            try await StreamingFixture.with { fixture in
                let error = await caughtError(CastRemoteDisplayError.self) {
                    _ = try await fixture.channel.beginSession(
                        configuration: RemoteDisplayConfiguration(videoCodecs: [], audio: nil))
                }
                #expect(error?.code == .invalidConfiguration)
                #expect(RemoteDisplayConfiguration.audioOnly().offersVideo == false)
                #expect(RemoteDisplayConfiguration.audioOnly().applicationID == CastApplicationID.audioMirroring)
            }
        }
    }
}
