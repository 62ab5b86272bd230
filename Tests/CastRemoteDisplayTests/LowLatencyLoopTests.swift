import CastEmulator
import Testing

@_spi(Receiver) @testable import CastStreaming

/// `--latency low` over a lossy link at virtual time, as the latency
/// benchmark streams it (720p30, 1 % of datagrams lost, up to 10 ms of
/// jitter, 10 s), with an encoder that takes 20 ms a frame and 120 ms for
/// its first (the benchmark's first frame took 119 ms to be acknowledged):
/// the delay each frame is sent with — what the receiver shows it after —
/// stays within 150 ms for 99 % of the frames, and 99 % of them are on time.
@Suite(.timeLimit(.minutes(1))) struct LowLatencyLoopTests {
    @Test(arguments: [UInt64(5), 6, 7])
    func aLossyLinksFramesAreShownWithin150ms(seed: UInt64) throws {
        var configuration = RemoteDisplayConfiguration(
            resolutions: [.hd720], maximumFrameRate: 30, maximumVideoBitrate: 3_000_000, videoCodecs: [.vp8], audio: nil
        )
        configuration.setLatency(.low)
        let loop = try ClosedLoopStreaming(
            configuration: configuration,
            impairment: NetworkImpairment(lossRate: 0.01, jitter: .milliseconds(10), seed: seed))
        loop.encodeTime = { $0 == 0 ? .milliseconds(120) : .milliseconds(20) }
        loop.run(for: .seconds(10))
        let delays = loop.delays.sorted()
        let p99 = try #require(delays.isEmpty ? nil : delays[delays.count * 99 / 100])
        let received = loop.received
        #expect(p99 <= .milliseconds(150), "delays p50 \(delays[delays.count / 2]), p99 \(p99)")
        #expect(received.framesDecoded >= 297, "\(received.framesDecoded) of \(loop.framesEnqueued) frames")
        #expect(received.framesLate * 100 <= received.framesDecoded, "\(received.framesLate) frames late")
    }
}
