import CastChannels
import CastEmulator
import CastLocalMedia
import CastMedia
import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// The SDK's ``LocalMediaPlayback`` — what `cast play` does in one call —
/// against the emulator's media player in memory, at virtual time: a film
/// resumed where it was stopped and its new position kept, `start` winning
/// over the kept position, and a LOAD the receiver fails without fetching
/// anything named as a receiver that cannot reach this machine.
@Suite(.timeLimit(.minutes(1))) struct LocalMediaPlaybackTests {
    /// A film in a folder of its own and the positions file beside it.
    struct Film {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("playback-\(UUID().uuidString)")
        var file: URL { self.folder.appendingPathComponent("film.mp4") }
        var positions: ResumePositions { ResumePositions(fileURL: self.folder.appendingPathComponent("resume.json")) }

        init() throws {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
            try Data(repeating: 7, count: 10_000).write(to: self.file)
        }

        func remove() { try? FileManager.default.removeItem(at: self.folder) }

        /// Played as MP4 from `start` (`nil`: where it was stopped), its positions kept.
        func configuration(start: Double? = nil) -> LocalMediaPlayback.Configuration {
            var configuration = LocalMediaPlayback.Configuration()
            configuration.load.contentType = "video/mp4"
            configuration.load.start = start
            configuration.resumePositions = self.positions
            return configuration
        }
    }

    /// A film stopped at 100 s starts there (the LOAD's currentTime), says
    /// so, and where it is stopped again is kept; with a start given, the
    /// kept position is not used.
    @Test func aStoppedFilmResumesAndWhereItStopsAgainIsKept() async throws {
        let film = try Film()
        defer { film.remove() }
        try film.positions.remember(100, duration: 600, for: film.file)
        try await PlaybackWatchTests.withMedia { emulator, media in
            let loads = emulator.events()
            let clock = ManualClock()
            let playback = try await LocalMediaPlayback.start(
                [PlayItem(source: .file(film.file))], on: media, toward: "127.0.0.1",
                configuration: film.configuration(), clock: clock)
            #expect(playback.resumedPosition == 100)
            #expect(await LocalMediaLoaderTests.nextLoad(loads)?["currentTime"]?.doubleValue == 100)
            #expect(playback.server != nil, "a local file is served")
            let events = Self.run(playback)
            await PlaybackWatchTests.tick(clock, times: 1)
            #expect(await clock.sleepers(atLeast: 1))
            playback.stop()
            clock.advance(by: .milliseconds(200))
            guard case .ended(let end)? = await events.value.last else {
                Issue.record("playback did not end")
                return
            }
            #expect(end.outcome == .stopped)
            let kept = try #require(film.positions.position(for: film.file))
            #expect((100..<130).contains(kept), "kept \(kept)")
            await playback.close()

            let restarted = try await LocalMediaPlayback.start(
                [PlayItem(source: .file(film.file))], on: media, toward: "127.0.0.1",
                configuration: film.configuration(start: 0), clock: ManualClock())
            #expect(restarted.resumedPosition == nil)
            #expect(await LocalMediaLoaderTests.nextLoad(loads)?["currentTime"]?.doubleValue == 0)
            await restarted.close()
        }
    }

    /// A LOAD that fails while the server saw no request is `unreachable`,
    /// naming the server's address; the server is stopped.
    @Test func aFailedLoadNothingFetchedIsUnreachable() async throws {
        let film = try Film()
        defer { film.remove() }
        try await PlaybackWatchTests.withMedia { emulator, media in
            emulator.faults.failingContentIDs = ["/film.mp4"]
            do {
                _ = try await LocalMediaPlayback.start(
                    [PlayItem(source: .file(film.file))], on: media, toward: "127.0.0.1",
                    configuration: film.configuration(start: 0))
                Issue.record("the LOAD did not fail")
            } catch let error as LocalMediaError {
                #expect(error.code == .unreachable)
                #expect(error.message.contains("never fetched anything from http://127.0.0.1:"), "\(error)")
            }
        }
    }

    /// The playback's events until its stream ends.
    static func run(_ playback: LocalMediaPlayback) -> Task<[PlaybackWatch.Event], Never> {
        Task {
            var events: [PlaybackWatch.Event] = []
            do {
                for try await event in playback.events() { events.append(event) }
            } catch {
                Issue.record("playback failed: \(error)")
            }
            return events
        }
    }
}
