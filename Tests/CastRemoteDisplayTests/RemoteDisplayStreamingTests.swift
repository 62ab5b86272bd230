import CastChannels
import CastEmulator
import CastRemoteDisplay
import Testing

/// Remote Display end to end: the channel's OFFER/ANSWER against the
/// emulator, then VP8 and Opus over real UDP on loopback, decoded by the
/// emulator's receiver with libvpx and libopus.
@Suite(.serialized) struct RemoteDisplayStreamingTests {
    @Test func deliversTenSecondsOf720pWithAudioEveryFrameDecoded() async throws {
        try await StreamingFixture.with { fixture in
            let source = try fixture.prepareSource(width: 1_280, height: 720)
            let session = try await fixture.channel.beginSession(configuration: RemoteDisplayConfiguration())
            #expect(session.configuration.resolution == .hd720)
            try await source.stream(seconds: 10, to: session)
            let sent = try #require(await self.settled(session))
            let report = try #require(
                try await fixture.report {
                    $0.video?.framesDecoded == sent.video?.framesSent
                        && $0.audio?.framesDecoded == sent.audio?.framesSent
                })
            let video = try #require(report.video)
            let audio = try #require(report.audio)
            print("720p30 10 s: \(video) \(audio) A/V \(String(describing: report.audioVideoOffset)) sent \(sent)")
            #expect(video.framesDecoded == sent.video?.framesSent)
            #expect(video.framesDecoded >= 270)
            #expect(video.decodeErrors == 0)
            #expect(video.unmatchedPictures == 0)
            #expect((video.minimumPSNR ?? 0) > 30)
            #expect(audio.framesDecoded == sent.audio?.framesSent)
            #expect(audio.framesDecoded >= 900)
            let offset = try #require(report.audioVideoOffset)
            #expect(abs(offset) < .milliseconds(5))
        }
    }

    /// The sender's statistics once every sent frame is acknowledged (or 5 s passed).
    private func settled(_ session: RemoteDisplaySession) async throws -> RemoteDisplayStatistics? {
        for _ in 0..<100 {
            let statistics = session.currentStatistics
            if let video = statistics.video, video.framesInFlight == 0, video.framesSent > 0,
                statistics.audio?.framesInFlight ?? 0 == 0
            {
                return statistics
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return session.currentStatistics
    }
}
