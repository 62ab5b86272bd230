import CastEmulator
import Testing

@_spi(Receiver) @testable import CastStreaming

/// The sender's congestion response over the emulator's capped link, at
/// virtual time (``ClosedLoopStreaming``): the bitrate under a cap and back
/// when it lifts, and the picture's size lowered and restored. The same
/// figures the real-time end-to-end tests asked for, seconds of streaming
/// in milliseconds and the same every run.
@Suite(.timeLimit(.minutes(1))) struct AdaptationLoopTests {
    /// 720p under a 1.2 Mbit/s cap with the size kept (the bitrate
    /// controller alone): the bitrate falls to what the cap carries, frames
    /// were dropped on the way, and it climbs half again once the cap lifts.
    @Test func theBitrateFollowsABandwidthCapDownAndBackUpWhenLifted() throws {
        let loop = try ClosedLoopStreaming(
            configuration: RemoteDisplayConfiguration(
                maximumVideoBitrate: 5_000_000, audio: nil, adaptsToCongestion: false),
            impairment: NetworkImpairment(bandwidthLimit: 1_200_000, queueLimit: .milliseconds(150), seed: 3))
        // At least six seconds (180 frames), as the real-time test streamed, then until it settles.
        loop.run(for: .seconds(6))
        let settled = loop.run(until: { (loop.engine.videoBitrate ?? 0) <= 1_600_000 }, within: .seconds(30))
        let capped = loop.engine.videoBitrate ?? 0
        #expect(settled, "bitrate under a 1.2 Mbit/s cap: \(capped)")
        #expect((loop.video?.framesDropped ?? 0) > 0)
        #expect(loop.engine.videoFormat?.resolution == .hd720, "the size is kept")
        loop.impair(NetworkImpairment())
        let lifted = loop.run(until: { (loop.engine.videoBitrate ?? 0) >= capped * 3 / 2 }, within: .seconds(30))
        #expect(lifted, "capped \(capped) bit/s, lifted \(loop.engine.videoBitrate ?? 0) bit/s")
    }

    /// 640×360 under a 250 kbit/s cap: the sender encodes fewer pixels, the
    /// frames flow again at that size, and the full size comes back once
    /// the cap lifts (a step up that congestion undoes doubles the wait
    /// before the next, up to 30 s; the deadline only fails the test).
    @Test func theSizeLowersUnderABandwidthCapAndIsRestoredWhenLifted() throws {
        let full = RemoteDisplayConfiguration.Resolution(width: 640, height: 360)
        let loop = try ClosedLoopStreaming(
            configuration: RemoteDisplayConfiguration(
                resolutions: [full], minimumVideoBitrate: 75_000, maximumVideoBitrate: 1_250_000, audio: nil),
            impairment: NetworkImpairment(bandwidthLimit: 250_000, queueLimit: .milliseconds(150), seed: 3))
        loop.run(for: .seconds(8))
        let capped = try #require(loop.engine.videoFormat)
        #expect(capped.resolution.width < full.width, "under the cap: \(capped)")
        let before = loop.video?.framesAcknowledged ?? 0
        loop.run(for: .seconds(2))
        #expect((loop.video?.framesAcknowledged ?? 0) - before >= 30, "frames flow at the lowered size")
        loop.impair(NetworkImpairment())
        let restored = loop.run(until: { loop.engine.videoFormat?.resolution == full }, within: .seconds(60))
        #expect(restored, "after the cap: \(String(describing: loop.engine.videoFormat))")
    }
}
