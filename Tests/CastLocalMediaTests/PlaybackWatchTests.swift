import CastChannels
import CastEmulator
import CastLocalMedia
import CastMedia
import CastMediaServer
import CastTestSupport
@_spi(Receiver) import CastTransport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The SDK's ``PlaybackWatch`` against the emulator's media player in
/// memory, at virtual time: a stall loaded again once and then given up
/// on, a receiver that never fetched anything named, a decoding error, and
/// a stop. (`cast play`'s tests see the same through the tool.)
@Suite(.timeLimit(.minutes(1))) struct PlaybackWatchTests {
    static let film = "https://media.example/film.mp4"

    /// A stall: after the buffering timeout the media is loaded again at its
    /// position (a second LOAD), and after another it is given up on.
    @Test func aStallIsLoadedAgainOnceThenGivenUpOn() async throws {
        try await Self.withMedia { emulator, media in
            emulator.faults.stallingContentIDs = [Self.film]
            let loads = emulator.events()
            try await Self.load(media)
            let clock = ManualClock()
            let watch = PlaybackWatch(media: media, bufferingTimeout: .seconds(1), clock: clock)
            let outcome = Self.run(watch)
            // 1 s of buffering is five 200 ms ticks: the reload comes with the fifth, the failure with the tenth.
            await Self.tick(clock, times: 10)
            let (events, error) = await outcome.value
            #expect(events.contains(.reloading(at: 0)), "\(events)")
            #expect((error as? LocalMediaError)?.code == .stalled, "\(String(describing: error))")
            #expect(
                error.map { "\($0)" }?.contains("kept buffering at 0:00 for 1 s, even after loading it again") == true)
            let sent = await collect(loads, count: 2, within: .seconds(10)) { event -> Bool? in
                guard case .messageReceived(_, let message) = event, message.text?.contains(#""LOAD""#) == true
                else { return nil }
                return true
            }
            #expect(sent.count == 2, "the first LOAD and the one again")
        }
    }

    /// Buffering while the server saw no request: the receiver cannot reach
    /// this machine, said at the first timeout, with no reload.
    @Test func aReceiverThatNeverFetchedIsNamedAtTheFirstTimeout() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1")
        try await Self.withMedia { emulator, media in
            emulator.faults.stallingContentIDs = [Self.film]
            try await Self.load(media)
            let clock = ManualClock()
            let watch = PlaybackWatch(media: media, server: server, bufferingTimeout: .seconds(1), clock: clock)
            let outcome = Self.run(watch)
            await Self.tick(clock, times: 5)
            let (events, error) = await outcome.value
            #expect(!events.contains { if case .reloading = $0 { true } else { false } })
            #expect((error as? LocalMediaError)?.code == .unreachable)
            #expect(
                error.map { "\($0)" }?.contains("never fetched anything from \(server.baseURL.absoluteString)") == true)
        }
        await server.stop()
    }

    /// The receiver's decoder fails: IDLE with reason ERROR is `undecodable`.
    @Test func aDecodingErrorIsUndecodable() async throws {
        try await Self.withMedia { emulator, media in
            emulator.faults.erroringContentIDs = [Self.film]
            try await Self.load(media)
            // The error is in the status before the watch's first look, which then ends it without a tick.
            let failed = try await waitUntil(within: .seconds(30)) { media.mediaStatus?.idleReason == .error }
            #expect(failed, "the emulator's player did not fail")
            let watch = PlaybackWatch(media: media, clock: ManualClock())
            let (_, error) = await Self.run(watch).value
            #expect((error as? LocalMediaError)?.code == .undecodable, "\(String(describing: error))")
        }
    }

    /// stop() sends STOP and ends with `.stopped`; progress came first.
    @Test func stoppingStopsThePlayerAndEndsStopped() async throws {
        try await Self.withMedia { _, media in
            try await Self.load(media)
            let clock = ManualClock()
            let watch = PlaybackWatch(media: media, clock: clock)
            let outcome = Self.run(watch)
            await Self.tick(clock, times: 1)
            // Asked while the watch sleeps: the next tick finds it.
            #expect(await clock.sleepers(atLeast: 1))
            watch.stop()
            clock.advance(by: .milliseconds(200))
            let (events, error) = await outcome.value
            #expect(error == nil)
            guard case .progress(let progress)? = events.first else {
                Issue.record("no progress first: \(events)")
                return
            }
            // The first tick may see the load still buffering, or already playing.
            #expect([.buffering, .playing].contains(progress.playerState))
            #expect(progress.duration == 600)
            #expect(progress.title == "Film")
            guard case .ended(let end)? = events.last else {
                Issue.record("no end: \(events)")
                return
            }
            #expect(end.outcome == .stopped)
            #expect(end.duration == 600)
            // The STOP was answered before the end: the player is idle.
            #expect(media.mediaStatus == nil || media.mediaStatus?.playerState == .idle)
        }
    }

    // MARK: Helpers

    /// Loads the film (600 s, titled) and waits for its status.
    static func load(_ media: RemoteMediaClient) async throws {
        var metadata = MediaMetadata(type: .movie)
        metadata.setString("Film", forKey: .title)
        _ = try await media.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: Self.film, contentType: "video/mp4", metadata: metadata, duration: 600)))
    }

    /// The watch's events until its stream ends, and the error it ended with.
    static func run(_ watch: PlaybackWatch) -> Task<([PlaybackWatch.Event], (any Error)?), Never> {
        Task {
            var events: [PlaybackWatch.Event] = []
            do {
                for try await event in watch.events() { events.append(event) }
                return (events, nil)
            } catch {
                return (events, error)
            }
        }
    }

    /// Lets the watch take `times` ticks: each time it sleeps, 200 ms pass.
    static func tick(_ clock: ManualClock, times: Int) async {
        for _ in 0..<times {
            guard await clock.sleepers(atLeast: 1) else { return }
            clock.advance(by: .milliseconds(200))
        }
    }

    /// An emulator in memory with the Default Media Receiver launched and a media client joined to it.
    static func withMedia(_ body: (CastEmulator, RemoteMediaClient) async throws -> Void) async throws {
        let emulator = try CastEmulator(logger: StreamingFixture.logger)
        try await emulator.start()
        let link = try await emulator.inMemoryLink(logger: StreamingFixture.logger)
        let result: Result<Void, any Error>
        do {
            let application = try await link.receiver.launch(appID: CastApplicationID.defaultMediaReceiver)
            let media = RemoteMediaClient()
            try await link.join(application, attaching: [media])
            try await body(emulator, media)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        await link.close()
        await emulator.stop()
        try result.get()
    }
}
