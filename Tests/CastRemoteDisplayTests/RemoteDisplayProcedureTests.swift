import CastChannels
import CastEmulator
import CastRemoteDisplay
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import NIOConcurrencyHelpers
import Testing

extension RemoteDisplayEndToEnd {
    /// The seeds' Remote Display procedure: the app launched afresh, stopped
    /// by its session id, and the 15 s first-frame deadline on both sides.
    @Suite struct RemoteDisplayProcedureTests {
        /// The session ids of the STOPs the emulator received while `body` ran.
        static func stops(_ fixture: StreamingFixture, during body: () async throws -> Void) async throws -> [String] {
            let messages = try await fixture.messagesReceived(on: CastNamespace.receiver, during: body)
            return messages.compactMap { message -> String? in
                guard let json = try? JSONValue(parsing: message.text ?? ""), json["type"] == "STOP" else { return nil }
                return json["sessionId"]?.stringValue ?? ""
            }
        }

        /// Against a Chromecast and against Open Screen's receiver (which ignores a LAUNCH of the
        /// app it runs, application_agent.cc:299-301): the running mirroring session is stopped by
        /// its id, the app launched afresh, and ending the session stops the new one by its id.
        @Test(arguments: [ReceiverProfile.chromecastWithGoogleTV, .openScreen])
        func aLaunchedSessionRelaunchesTheAppAndStopsItByItsSessionID(profile: ReceiverProfile) async throws {
            try await StreamingFixture.with(streaming: nil, profile: profile) { fixture in
                let running = try #require(fixture.application.sessionID)
                let channel = try #require(RemoteDisplayChannel(logger: StreamingFixture.logger))
                let source = try fixture.prepareSource(width: 640, height: 360)
                let configuration = RemoteDisplayConfiguration(
                    resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil)
                var session: RemoteDisplaySession?
                let stopped = try await Self.stops(fixture) {
                    session = try await channel.launchSession(configuration: configuration, on: fixture.receiver)
                }
                #expect(stopped == [running])
                let relaunched = try #require(fixture.emulator.runningApplication)
                #expect(relaunched.application.appID == CastApplicationID.mirroring)
                #expect(relaunched.sessionID != running)
                try await source.stream(seconds: 0.5, to: try #require(session))
                #expect(try await fixture.report { ($0.video?.framesDecoded ?? 0) >= 10 } != nil)

                let ended = try await Self.stops(fixture) { await channel.endSession() }
                #expect(ended == [relaunched.sessionID])
                #expect(session?.state == .ended(.stopped))
                #expect(fixture.emulator.runningApplication == nil)
                #expect(!channel.isConnected)
            }
        }

        @Test func aReceiverWithoutTheAppIsALaunchFailure() async throws {
            try await StreamingFixture.with { fixture in
                let channel = try #require(RemoteDisplayChannel(logger: StreamingFixture.logger))
                let error = await caughtError(CastRemoteDisplayError.self) {
                    _ = try await channel.launchSession(
                        configuration: RemoteDisplayConfiguration(applicationID: "0000FFFF"), on: fixture.receiver)
                }
                #expect(error?.code == .launchFailed)
                #expect(error?.cause is CastChannelError)
            }
        }

        /// The sender side of the deadline: no frame, and the session ends by itself at the
        /// deadline, not before (at virtual time).
        @Test func aSessionWithoutAFrameEndsAtTheFirstFrameDeadline() async throws {
            let clock = ManualClock()
            try await StreamingFixture.with(clock: clock) { fixture in
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(audio: nil, firstFrameDeadline: .milliseconds(400)))
                let states = session.stateUpdates()
                // The warning at half the deadline, then the end at the deadline.
                await clock.sleeper(until: ManualClock.Instant(offset: .milliseconds(200)))
                clock.advance(by: .milliseconds(200))
                // Asleep until the deadline: the half-way check did not end it.
                await clock.sleeper(until: ManualClock.Instant(offset: .milliseconds(400)))
                #expect(session.state == .active)
                clock.advance(by: .milliseconds(200))
                let ended = await first(states, within: .seconds(5)) { if case .ended = $0 { true } else { false } }
                #expect(ended == .ended(.noFirstFrame))
                let error = #expect(throws: CastRemoteDisplayError.self) {
                    try session.enqueueVideoFrame(try PixelBuffer(format: .i420, width: 1_280, height: 720), pts: .now)
                }
                #expect(error?.code == .sessionEnded)
            }
        }

        /// A frame before the deadline: the watchdog, woken past the deadline (at virtual
        /// time), leaves the session active.
        @Test func aFrameInTimeKeepsTheSession() async throws {
            let clock = ManualClock()
            try await StreamingFixture.with(clock: clock) { fixture in
                let source = try fixture.prepareSource(width: 640, height: 360)
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(
                        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil,
                        firstFrameDeadline: .milliseconds(1_500)))
                try await source.stream(seconds: 0.1, to: session)
                await clock.sleeper(until: ManualClock.Instant(offset: .milliseconds(750)))
                clock.advance(by: .seconds(2))
                await session.firstFrameWatchdogFinished()
                #expect(session.state == .active)
            }
        }

        /// The receiver side: Google's receivers stop an app whose session got no frame (the SDK's
        /// guide), Open Screen's does not (no such timer in receiver_session.cc).
        @Test func aGoogleReceiverStopsAnAppWhoseSessionGetsNoFrame() async throws {
            #expect(ReceiverProfile.chromecastWithGoogleTV.streaming.firstFrameDeadline == .seconds(15))
            #expect(ReceiverProfile.nestSpeaker.streaming.firstFrameDeadline == .seconds(15))
            #expect(ReceiverProfile.openScreen.streaming.firstFrameDeadline == nil)
            try await StreamingFixture.with(
                streaming: StreamingReceiverConfiguration(firstFrameDeadline: .milliseconds(500))
            ) { fixture in
                let session = try await fixture.channel.beginSession(
                    configuration: RemoteDisplayConfiguration(audio: nil, firstFrameDeadline: .seconds(60)))
                let states = session.stateUpdates()
                let ended = await first(states, within: .seconds(5)) { if case .ended = $0 { true } else { false } }
                #expect(ended == .ended(.receiverApplicationStopped))
                #expect(fixture.emulator.runningApplication == nil)
            }
        }
    }
}

extension StreamingFixture {
    /// A namespace no receiver handles, for ``messagesReceived(on:during:)``'s marker.
    static let markerNamespace = "urn:x-cast:com.example.test-marker"

    /// The messages on `namespace` the emulator received while `body` ran, every one of them
    /// without a fixed wait for its events to catch up: once `body` is done, a marker goes to
    /// the receiver on the fixture's connection, behind what `body` sent on it, and the emulator
    /// reports a connection's messages in the order they came.
    func messagesReceived(on namespace: String, during body: () async throws -> Void) async throws -> [CastMessage] {
        let events = self.emulator.events()
        try await body()
        let marker = UUID().uuidString
        try await self.connection.send(namespace: Self.markerNamespace, to: "receiver-0", text: marker)
        let received = NIOLockedValueBox([CastMessage]())
        let marked = await first(events) { event in
            switch event {
            case .messageReceived(_, let message) where message.namespace == Self.markerNamespace,
                .messageDropped(_, let message) where message.namespace == Self.markerNamespace:
                return message.text == marker
            case .messageReceived(_, let message) where message.namespace == namespace:
                received.withLockedValue { $0.append(message) }
                return false
            default:
                return false
            }
        }
        #expect(marked != nil, "the marker sent after \(namespace) messages did not reach the emulator")
        return received.withLockedValue { $0 }
    }
}
