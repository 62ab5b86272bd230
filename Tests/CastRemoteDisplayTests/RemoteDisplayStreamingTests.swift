import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The end-to-end suites: each test that streams in real time takes the
/// process's real-time turn through `StreamingFixture`, so none shares the
/// machine with another; they are not serialized as a whole (which made
/// the chain wait for the turn test after test, the suite's ~30 tests
/// the test phase's longest path).
@Suite(.timeLimit(.minutes(10))) enum RemoteDisplayEndToEnd {
    /// Remote Display end to end: the channel's OFFER/ANSWER against the
    /// emulator, then VP8 and Opus over real UDP on loopback, decoded by the
    /// emulator's receiver with libvpx and libopus.
    @Suite struct RemoteDisplayStreamingTests {
        @Test func deliversTenSecondsOf720pWithAudioEveryFrameDecoded() async throws {
            try await StreamingFixture.with { fixture in
                let source = try fixture.prepareSource(width: 1_280, height: 720)
                let session = try await fixture.channel.beginSession(configuration: RemoteDisplayConfiguration())
                #expect(session.configuration.resolution == .hd720)
                // Under a sanitizer, 4 s: what it checks there (every frame sent decoded, no
                // decode error, pictures not garbage) holds or fails within seconds, and its
                // 10 s took 23 s of the ThreadSanitizer run's real-time turns (235 s in all).
                try await source.stream(seconds: Sanitizers.areActive ? 4 : 10, to: session)
                let sent = try #require(await settled(session))
                let report = try #require(
                    try await fixture.report {
                        $0.video?.framesDecoded == sent.video?.framesSent
                            && $0.audio?.framesDecoded == sent.audio?.framesSent
                    })
                let video = try #require(report.video)
                let audio = try #require(report.audio)
                print("720p30 10 s: \(video) \(audio) A/V \(String(describing: report.audioVideoOffset)) sent \(sent)")
                #expect(video.framesDecoded == sent.video?.framesSent)
                #expect(video.decodeErrors == 0)
                #expect(video.unmatchedPictures == 0)
                // Pictures, not garbage (a wrong key or reference decodes to ~10 dB).
                #expect((video.minimumPSNR ?? 0) > 20)
                // Quality, throughput and timing, at full speed only: a sanitizer build is
                // 5–15× slower, and its receiver falls behind its socket, a real loss the
                // bitrate controller answers with a lower bitrate (CI's TSan run: 24.5 dB).
                guard !Sanitizers.areActive else { return }
                #expect((video.minimumPSNR ?? 0) > 30)
                #expect(audio.framesDecoded == sent.audio?.framesSent)
                // A loaded machine (CI runs every suite at once, in a debug build) may
                // drop a few frames before encoding them; what was sent must all decode.
                #expect(video.framesDecoded >= 240)
                #expect(audio.framesDecoded >= 800)
                let offset = try #require(report.audioVideoOffset)
                #expect(abs(offset) < .milliseconds(20))
                // A clean link: the receiver NACKs only packets really missing, so
                // (almost) nothing is resent — before, 5–8 % of packets were. At most
                // 1 %: with a core busy the receiver, in this process, read late
                // enough to NACK 0.55 % (20 of 3 643) once in 11 runs; 0.5 % before.
                let packets = try #require(sent.video?.packetsSent)
                #expect(Double(sent.video?.retransmittedPackets ?? .max) <= Double(packets) * 0.01)
            }
        }

        /// Pictures an app renders itself, in BGRA (issue 34): converted into
        /// the session's pooled buffers by `PackedPictureConverter`, every
        /// frame decoded, each faithful to the picture drawn (luma PSNR
        /// against libyuv's conversion of it).
        @Test func bgraPicturesTheAppDrawsAreDecodedFaithfully() async throws {
            try await StreamingFixture.with { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360, pictureFormat: .bgra)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
                try await source.stream(seconds: 2, to: session)
                let sent = try #require(await settled(session))
                let report = try #require(
                    try await fixture.report { $0.video?.framesDecoded == sent.video?.framesSent })
                let video = try #require(report.video)
                print("BGRA 360p 2 s: \(video) sent \(sent)")
                #expect(video.framesDecoded == sent.video?.framesSent)
                #expect(video.decodeErrors == 0)
                #expect(video.unmatchedPictures == 0)
                #expect((video.minimumPSNR ?? 0) > 20)
                // Quality at full speed only: under a sanitizer the receiver falls behind (see above).
                guard !Sanitizers.areActive else { return }
                #expect((video.minimumPSNR ?? 0) >= 35)
            }
        }

        /// Open Screen's standalone receiver takes VP9 over VP8, H.264 over both
        /// and AV1 over all (mirroring_application.cc:72-74) and decodes what it
        /// took — H.264 and AV1 with FFmpeg's decoders, not the libraries that encoded them; the
        /// default profile (a Chromecast with Google TV, which decodes VP9) gets VP9.
        @Test func theReceiverPicksTheCodecAndDecodesIt() async throws {
            let cases: [(ReceiverProfile, [VideoCodec], VideoCodec)] = [
                (.openScreen, [.vp9, .vp8], .vp9), (.openScreen, [.vp9, .h264, .vp8], .h264),
                (.openScreen, [.vp9, .h264, .av1], .av1),
                (.chromecastWithGoogleTV, [.vp9, .vp8], .vp9),
            ]
            for (profile, offered, codec) in cases {
                try await StreamingFixture.with(streaming: nil, profile: profile) { fixture in
                    let source = try fixture.prepareSource(width: 640, height: 360)
                    let session = try await fixture.channel.beginSession(
                        configuration: RemoteDisplayConfiguration(
                            resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)],
                            videoCodecs: offered, audio: nil))
                    #expect(session.configuration.videoCodec == codec)
                    try await source.stream(seconds: 1, to: session)
                    let report = try await fixture.report { ($0.video?.framesDecoded ?? 0) >= 20 }
                    print("\(profile.name): \(String(describing: report?.video))")
                    #expect(report?.video?.codec == codec)
                    #expect((report?.video?.framesDecoded ?? 0) >= 20)
                    #expect(report?.video?.decodeErrors == 0)
                    #expect((report?.video?.minimumPSNR ?? 0) > 30)
                }
            }
        }

        /// Audit row 9: a receiver whose 4:3 display does not scale gets
        /// letterboxed frames of its shape; the app still draws 16:9.
        @Test func aDisplayThatDoesNotScaleGetsLetterboxedFrames() async throws {
            let display = StreamingReceiverConfiguration.Display(
                width: 1_024, height: 768, frameRate: 30, aspectRatio: (4, 3), scaling: .sender)
            try await StreamingFixture.with(streaming: StreamingReceiverConfiguration(display: display)) { fixture in
                // The size is what this checks, so it must not adapt: under TSan the encoder falls
                // behind, frames drop, and the adaptation took the ¾ size (768×576) in CI.
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(adaptsToCongestion: false))
                #expect(
                    session.configuration.resolution == RemoteDisplayConfiguration.Resolution(width: 1_024, height: 576)
                )
                #expect(
                    session.letterbox?.frameSize == RemoteDisplayConfiguration.Resolution(width: 1_024, height: 768))
                let source = try TestSignal(
                    width: 1_024, height: 576, frameRate: 30, start: .now.advanced(by: .milliseconds(100)))
                try await source.stream(seconds: 2, to: session)
                // What this checks is the pictures' size; a few frames are plenty, even on a loaded machine.
                let report = try await fixture.report { ($0.video?.framesDecoded ?? 0) >= 5 }
                #expect((report?.video?.framesDecoded ?? 0) >= 5)
                #expect(report?.video?.pictureWidth == 1_024)
                #expect(report?.video?.pictureHeight == 768)
                #expect(report?.video?.decodeErrors == 0)
            }
        }
    }

    /// The network between sender and receiver misbehaves (inside the
    /// emulator: loss, jitter, a bandwidth cap) and the sender copes.
    @Suite struct RemoteDisplayRecoveryTests {
        /// Low latency (issue 52): 1 % loss and 10 ms jitter in the emulator;
        /// the delay starts at 120 ms and follows the link (on loopback it
        /// comes down), and still 99 % of frames play on time.
        @Test func lowLatencyFollowsTheLinkAndPlaysNinetyNinePercentOnTime() async throws {
            try await StreamingFixture.with(
                streaming: StreamingReceiverConfiguration(
                    impairment: NetworkImpairment(lossRate: 0.01, jitter: .milliseconds(10), seed: 11))
            ) { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                var configuration = RemoteDisplayConfiguration(
                    resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)],
                    maximumVideoBitrate: 2_000_000)
                configuration.setLatency(.low)
                let session = try await fixture.channel.beginSession(configuration: configuration)
                #expect(session.targetDelay == .milliseconds(120))
                try await source.stream(seconds: 3, to: session)
                let sent = try #require(await settled(session))
                let sentVideo = try #require(sent.video?.framesSent)
                let report = try #require(try await fixture.report { $0.video?.framesDecoded == sentVideo })
                let video = try #require(report.video)
                #expect(report.datagramsDroppedByImpairment > 0)
                #expect(Double(video.framesDecoded - video.framesLate) >= 0.99 * Double(sentVideo))
                #expect(sent.targetDelay < .milliseconds(120), "the delay came down on a quick link")
                #expect(sent.targetDelay >= .milliseconds(60))
                // The receiver plays at the delay sent in band with the last frames (the
                // sender may have stepped on since: the link was quick, nothing more went).
                #expect(video.playoutDelay < .milliseconds(120) && video.playoutDelay >= sent.targetDelay)
                // Draw → shown: a frame on time shows at its playout, the delay in force after its
                // capture — within the low mode's range (how far in it is the link's and the load's:
                // 88 ms alone, above 125 ms in a fresh-clone CI, which benchmarks measure).
                let shown = try #require(video.shownLatencyP50)
                print("low latency: shown p50 \(shown), p99 \(String(describing: video.shownLatencyP99))")
                #expect(shown >= .milliseconds(55) && shown <= .milliseconds(405), "shown p50 \(shown)")
            }
        }

        @Test func fivePercentLossAndJitterStillPlaysNinetyNinePercentOnTime() async throws {
            try await StreamingFixture.with(
                streaming: StreamingReceiverConfiguration(
                    impairment: NetworkImpairment(lossRate: 0.05, jitter: .milliseconds(20), seed: 7))
            ) { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)],
                        maximumVideoBitrate: 2_000_000))
                try await source.stream(seconds: 6, to: session)
                let sent = try #require(await settled(session))
                let sentVideo = try #require(sent.video?.framesSent)
                let report = try #require(try await fixture.report { $0.video?.framesDecoded == sentVideo })
                let video = try #require(report.video)
                #expect(report.datagramsDroppedByImpairment > 0)
                #expect((sent.video?.retransmittedPackets ?? 0) > 0)
                #expect(video.framesDecoded == sentVideo)
                #expect(Double(video.framesDecoded - video.framesLate) >= 0.99 * Double(sentVideo))
                #expect(sentVideo >= 150)
            }
        }

        /// Under a cap the picture cannot be carried cleanly, the sender
        /// encodes fewer pixels: the receiver decodes smaller pictures, and
        /// frames flow again at that size. End to end, with libvpx and the
        /// emulator's decoder; the bitrate under a cap, and the size coming
        /// back once the cap lifts, are followed at virtual time
        /// (`AdaptationLoopTests`, the same link and figures).
        ///
        /// At 640×360 under a 250 kbit/s cap (it was 1 280×720 under 1.2
        /// Mbit/s, the same bits per pixel): the ladder is the same at any
        /// size, and at 720p, with a core busy, the encoder, the emulator's
        /// decoder and its PSNR in this process took more than a core
        /// between them.
        @Test(
            .disabled(
                if: Sanitizers.areActive,
                "adaptation steps are timed against the network; a TSan build runs 5-15x slower")
        )
        func lowersTheSizeUnderABandwidthCap() async throws {
            let cap = NetworkImpairment(bandwidthLimit: 250_000, queueLimit: .milliseconds(150), seed: 3)
            let full = RemoteDisplayConfiguration.Resolution(width: 640, height: 360)
            try await StreamingFixture.with(
                streaming: StreamingReceiverConfiguration(impairment: cap), lane: .wholeMachine
            ) { fixture in
                let widths = NIOLockedValueBox([Int]())
                fixture.emulator.streaming.observer.picture = { _, picture in
                    widths.withLockedValue { $0.append(picture.width) }
                }
                let source = try fixture.prepareSource(width: full.width, height: full.height)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [full], minimumVideoBitrate: 75_000, maximumVideoBitrate: 1_250_000, audio: nil))
                // A second at a time until the receiver decodes a smaller picture; the deadline only fails the test.
                var frame = 0
                let deadline = ContinuousClock.now + .seconds(30)
                repeat {
                    try await source.stream(seconds: 1, to: session, firstFrame: frame)
                    frame += 30
                } while (widths.withLockedValue { $0.last } ?? full.width) >= full.width
                    && ContinuousClock.now < deadline
                let capped = session.currentStatistics
                print(
                    "capped after \(frame / 30) s: \(String(describing: capped.videoResolution)) at \(capped.videoBitrate) bit/s"
                )
                #expect((capped.videoResolution?.width ?? full.width) < full.width)
                #expect(widths.withLockedValue { $0.first } == full.width)
                #expect((widths.withLockedValue { $0.last } ?? full.width) < full.width)
                // The lowered size is what the cap can carry: frames flow again. Their
                // acknowledgements come behind the capped queue (up to 150 ms), so they are
                // waited for; the deadline only fails the test.
                let before = capped.video?.framesAcknowledged ?? 0
                try await source.stream(seconds: 2, to: session, firstFrame: frame)
                #expect(
                    try await waitUntil(within: .seconds(10)) {
                        (session.currentStatistics.video?.framesAcknowledged ?? 0) - before >= 30
                    }, "\(session.currentStatistics)")
            }
        }

        @Test func aPictureLossIndicationBringsAKeyFrame() async throws {
            try await StreamingFixture.with { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
                try await source.stream(seconds: 1, to: session)
                let before = try #require(try await fixture.report { ($0.video?.framesDecoded ?? 0) > 20 })
                #expect(before.video?.keyFrames == 1)
                fixture.emulator.requestKeyFrame()
                try await source.stream(seconds: 1, to: session, firstFrame: 30)
                let after = try #require(try await fixture.report { ($0.video?.keyFrames ?? 0) >= 2 })
                #expect(after.video?.keyFrames == 2)
                #expect(after.video?.decodeErrors == 0)
            }
        }
    }

    /// Negotiation, in-band changes, and the session's life.
    @Suite struct RemoteDisplaySessionTests {
        /// The encoder and network threads carry names Linux keeps (top -H,
        /// perf and the benchmarks' per-thread CPU clocks read them), and
        /// end with the session.
        @Test func theSendersThreadsAreNamedAndEndWithTheSession() async throws {
            try await StreamingFixture.with { fixture in
                // Sessions run one at a time (StreamingFixture); an earlier one's threads may still be ending.
                try #require(try await senderThreadsEnded())
                let source = try fixture.prepareSource(width: 320, height: 240)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 320, height: 240)], audio: nil))
                try await source.stream(seconds: 0.3, to: session)
                // A thread names itself once it first runs, which on a loaded machine (CI under
                // ThreadSanitizer once) can come after the first frames were queued.
                let running = try await processThreadNames(within: .seconds(10)) {
                    $0.contains("cast.encoder") && $0.contains("cast.network")
                }
                #expect(running.filter { $0 == "cast.encoder" }.count == 1, "threads: \(running)")
                #expect(running.filter { $0 == "cast.network" }.count == 1, "threads: \(running)")
                session.stop()
                #expect(try await senderThreadsEnded())
            }
        }

        @Test func aTargetDelayChangeArrivesInBand() async throws {
            try await StreamingFixture.with { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)]))
                try await source.stream(seconds: 0.5, to: session)
                let first = try await fixture.report { ($0.video?.framesDecoded ?? 0) > 5 }
                #expect(first?.video?.playoutDelay == .milliseconds(400))
                session.targetDelay = .milliseconds(900)
                #expect(session.targetDelay == .milliseconds(900))
                try await source.stream(seconds: 0.5, to: session, firstFrame: 15)
                let changed = try await fixture.report {
                    $0.video?.playoutDelay == .milliseconds(900) && $0.audio?.playoutDelay == .milliseconds(900)
                }
                #expect(changed?.video?.playoutDelay == .milliseconds(900))
                #expect(changed?.audio?.playoutDelay == .milliseconds(900))
            }
        }

        @Test func aRejectedOfferIsATypedErrorWithTheReceiversReason() async throws {
            try await StreamingFixture.with(
                streaming: StreamingReceiverConfiguration(answer: .reject(code: 42, description: "display busy"))
            ) { fixture in
                let error = await #expect(throws: CastRemoteDisplayError.self) {
                    _ = try await fixture.channel.beginSession(configuration: RemoteDisplayConfiguration())
                }
                #expect(error?.code == .offerRejected)
                #expect(error?.cause as? OfferRejection == OfferRejection(code: 42, reason: "display busy"))
                #expect(fixture.channel.currentSession == nil)
            }
        }

        @Test func anOfferWithoutAnswerTimesOut() async throws {
            try await StreamingFixture.with { fixture in
                fixture.emulator.respond(to: CastNamespace.webrtc) { _ in [] }
                let error = await #expect(throws: CastRemoteDisplayError.self) {
                    _ = try await fixture.channel.beginSession(
                        configuration: RemoteDisplayConfiguration(answerTimeout: .milliseconds(300)))
                }
                #expect(error?.code == .answerTimedOut)
            }
        }

        /// Audit row 13 and conformance 071: an ANSWER typed in lower case and
        /// without `seqNum` (a first-generation Chromecast's) answers the offer
        /// waiting. Before, the channel dropped it and the offer timed out.
        @Test func anAnswerWithoutSequenceNumberInLowerCaseStartsTheSession() async throws {
            try await StreamingFixture.with { fixture in
                fixture.emulator.respond(to: CastNamespace.webrtc) { offer in
                    guard let json = try? JSONValue(parsing: offer.text ?? ""),
                        let streams = json["offer"]?["supportedStreams"]?.arrayValue
                    else { return [] }
                    let answer: JSONValue = [
                        "type": "answer", "result": "ok",
                        "answer": [
                            "udpPort": 9, "sendIndexes": .array(streams.compactMap { $0["index"] }),
                            "ssrcs": .array(streams.compactMap { $0["ssrc"]?.intValue.map { .integer($0 + 1) } }),
                        ],
                    ]
                    return [
                        CastMessage(
                            namespace: offer.namespace, sourceID: offer.destinationID, destinationID: offer.sourceID,
                            payload: .string((try? answer.jsonText()) ?? "{}"))
                    ]
                }
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(answerTimeout: .seconds(5)))
                #expect(session.state == .active)
                session.stop()
            }
        }

        @Test func theAnswersConstraintsAreHonoured() async throws {
            let constraints = StreamingReceiverConfiguration.Constraints(
                maximumResolution: RemoteDisplayConfiguration.Resolution(width: 960, height: 540), maximumFrameRate: 25,
                maximumVideoBitrate: 1_500_000, maximumAudioBitrate: 64_000, maximumDelay: 250)
            try await StreamingFixture.with(streaming: StreamingReceiverConfiguration(constraints: constraints)) {
                fixture in
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(resolutions: [.hd1080, .hd720]))
                let configuration = session.configuration
                #expect(configuration.resolutions == [RemoteDisplayConfiguration.Resolution(width: 960, height: 540)])
                #expect(configuration.maximumFrameRate == 25)
                #expect(configuration.maximumVideoBitrate == 1_500_000)
                #expect(configuration.audio?.bitrate == 64_000)
                #expect(configuration.targetDelay == .milliseconds(250))
                #expect(session.targetDelay == .milliseconds(250))
                var size: [Int] = []
                if let buffer = session.createPixelBuffer() { size = [buffer.width, buffer.height] }
                #expect(size == [960, 540])
                let error = #expect(throws: CastRemoteDisplayError.self) {
                    try session.enqueueVideoFrame(try PixelBuffer(format: .i420, width: 1_280, height: 720), pts: .now)
                }
                #expect(error?.code == .frameFormatMismatch)
            }
        }

        @Test func anAudioOnlyAnswerGivesAnAudioSession() async throws {
            try await StreamingFixture.with(streaming: StreamingReceiverConfiguration(answer: .acceptAudioOnly)) {
                fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(configuration: RemoteDisplayConfiguration())
                var hasBuffer = false
                if session.createPixelBuffer() != nil { hasBuffer = true }
                #expect(!hasBuffer)
                #expect(session.audioQueue != nil)
                try await source.stream(seconds: 1, to: session)
                let report = try await fixture.report { ($0.audio?.framesDecoded ?? 0) >= 80 }
                #expect((report?.audio?.framesDecoded ?? 0) >= 80)
                #expect(report?.video == nil)
            }
        }

        /// A Nest speaker (its profile) runs audio mirroring (85CDB22F) and answers with the Opus stream alone.
        @Test func aNestSpeakerTakesAudioOnlyOnTheAudioMirroringApp() async throws {
            try await StreamingFixture.with(
                streaming: nil, profile: .nestSpeaker, application: CastApplicationID.audioMirroring
            ) { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(configuration: RemoteDisplayConfiguration())
                #expect(session.audioQueue != nil)
                try await source.stream(seconds: 1, to: session)
                let report = try await fixture.report { ($0.audio?.framesDecoded ?? 0) >= 80 }
                #expect((report?.audio?.framesDecoded ?? 0) >= 80)
                #expect(report?.video == nil)
            }
        }

        @Test func theReceiverAppStoppingEndsTheSession() async throws {
            try await StreamingFixture.with { fixture in
                let session = try await fixture.channel.beginSession(configuration: RemoteDisplayConfiguration())
                let states = session.stateUpdates()
                fixture.emulator.stopApplication()
                let ended = await first(states, within: .seconds(5)) { if case .ended = $0 { true } else { false } }
                #expect(ended == .ended(.receiverApplicationStopped))
                #expect(fixture.channel.currentSession == nil)
                #expect(fixture.emulator.streamingPort == nil)
                let error = #expect(throws: CastRemoteDisplayError.self) {
                    try session.enqueueVideoFrame(try PixelBuffer(format: .i420, width: 1_280, height: 720), pts: .now)
                }
                #expect(error?.code == .sessionEnded)
            }
        }

        @Test func stoppingTheEmulatorClosesTheStreamingPortAndKeepsTheReport() async throws {
            try await StreamingFixture.with { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
                try await source.stream(seconds: 0.3, to: session)
                let port = try #require(fixture.emulator.streamingPort)
                #expect(!UDPPort.isFree(port))
                await fixture.emulator.stop()
                #expect(fixture.emulator.streamingPort == nil)
                #expect((fixture.emulator.streamingReport?.video?.framesReceived ?? 0) > 0)
                // The socket closes on the receiver's own thread, which then ends.
                try await retrying {
                    guard UDPPort.isFree(port) else { throw UDPPort.InUse() }
                }
            }
        }

        @Test func anInterruptionPausesAndTheReconnectionResumesWithAKeyFrame() async throws {
            try await StreamingFixture.with { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
                try await source.stream(seconds: 0.5, to: session)
                fixture.channel.detach()
                #expect(session.state == .interrupted)
                var taken: Bool?
                if let frame = try source.makeFrame(0, for: session) {
                    taken = try session.enqueueVideoFrame(frame, pts: .now)
                }
                #expect(taken == false)
                fixture.channel.attach(
                    to: fixture.connection, destinationID: try #require(fixture.application.transportID),
                    logger: quietLogger)
                #expect(session.state == .active)
                try await source.stream(seconds: 0.5, to: session, firstFrame: 30)
                let report = try await fixture.report { ($0.video?.keyFrames ?? 0) >= 2 }
                #expect(report?.video?.keyFrames == 2)
            }
        }
    }
}

/// The sender's statistics once it has settled: nothing in flight and
/// nothing more sent between two statistics the session publishes, one
/// statistics period apart (the encoder's backlog is drained); after 10 s,
/// whatever they are.
func settled(_ session: RemoteDisplaySession) async -> RemoteDisplayStatistics? {
    let previous = NIOLockedValueBox<RemoteDisplayStatistics?>(nil)
    let quiet = await first(session.statistics(), within: .seconds(10)) { statistics in
        previous.withLockedValue { last in
            defer { last = statistics }
            guard let before = last else { return false }
            return statistics.video?.framesSent == before.video?.framesSent
                && statistics.audio?.framesSent == before.audio?.framesSent
                && statistics.video?.framesInFlight ?? 0 == 0 && statistics.audio?.framesInFlight ?? 0 == 0
        }
    }
    return quiet ?? session.currentStatistics
}
