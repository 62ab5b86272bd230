import Testing

@_spi(Receiver) @testable import CastStreaming

/// The congestion ladder, driven by hand at 500 ms steps.
@Suite(.timeLimit(.minutes(3))) struct VideoAdaptationTests {
    let start = HostTime(nanoseconds: 5_000_000_000)
    func at(_ milliseconds: Int) -> HostTime { self.start.advanced(by: .milliseconds(milliseconds)) }
    static let hd = RemoteDisplayConfiguration.Resolution(width: 1_280, height: 720)

    @Test func theLadderLowersTheSizeThenTheFrameRate() {
        let ladder = VideoAdaptation(size: Self.hd, frameRate: 30, minimumBitrate: 300_000, enabled: true)
        #expect(ladder.levels.map(\.scale) == [1, 0.75, 0.5, 0.375, 0.375, 0.375, 0.375])
        #expect(ladder.levels.map(\.frameRate) == [30, 30, 30, 30, 20, 15, 10])
        #expect(ladder.levels.map { ladder.resolution(of: $0).width } == [1_280, 960, 640, 480, 480, 480, 480])
        #expect(ladder.resolution(of: ladder.levels[3]).height == 270)
        // Never narrower than 320: a 640-wide stream stops at half size.
        let small = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 640, height: 360), frameRate: 30,
            minimumBitrate: 300_000, enabled: true)
        #expect(small.levels.map(\.scale) == [1, 0.75, 0.5, 0.5, 0.5, 0.5])
        // Off: one level.
        #expect(
            VideoAdaptation(size: Self.hd, frameRate: 30, minimumBitrate: 300_000, enabled: false).levels.count == 1)
        // Odd sizes round down to even ones.
        let odd = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 1_366, height: 768), frameRate: 30,
            minimumBitrate: 300_000, enabled: true)
        #expect(odd.resolution(of: odd.levels[1]) == RemoteDisplayConfiguration.Resolution(width: 1_024, height: 576))
    }

    @Test func itStepsDownAfterASecondStarvedAndUpAfterThreeComfortable() {
        var changed = false
        var ladder = VideoAdaptation(size: Self.hd, frameRate: 30, minimumBitrate: 300_000, enabled: true)
        // 800 kbit/s at 720p30 is 0.029 bit per pixel: starved, but only a second of it steps down.
        changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(0))
        #expect(!changed)
        changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(500))
        #expect(!changed)
        changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(1_000))
        #expect(changed)
        #expect(ladder.index == 1)
        // 960×540 at 800 kbit/s is 0.051: held; no bandwidth known, no step up.
        for step in 3...12 {
            changed = ladder.update(bitrate: 800_000, usable: nil, framesDropped: false, at: self.at(step * 500))
            #expect(!changed)
        }
        // Plenty of bandwidth, and 2 Mbit/s at 720p is 0.072: up after 3 s, not before.
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(7_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(9_500))
        #expect(!changed)
        // A dropped frame restarts the wait.
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: true, at: self.at(9_800))
        #expect(!changed)
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(10_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 2_000_000, usable: 5_000_000, framesDropped: false, at: self.at(13_000))
        #expect(changed)
        #expect(ladder.index == 0)
    }

    @Test func dropsAtTheMinimumBitrateStepDownAndAFailedProbeWaitsLonger() {
        var changed = false
        // 640×360 at 300 kbit/s is 0.043 bit per pixel: not starved by the measure, but
        // frames drop at the minimum bitrate, so the path cannot carry even that.
        var ladder = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 640, height: 360), frameRate: 30,
            minimumBitrate: 300_000, enabled: true)
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(0))
        #expect(!changed)
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(1_000))
        #expect(changed)
        #expect(ladder.level == VideoAdaptation.Level(scale: 0.75, frameRate: 30))
        // Up after 3 s of comfort…
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(2_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(5_000))
        #expect(changed)
        // …undone within 10 s: the next probe waits twice as long.
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(5_500))
        #expect(!changed)
        changed = ladder.update(bitrate: 300_000, usable: nil, framesDropped: true, at: self.at(6_500))
        #expect(changed)
        #expect(ladder.upDelay == .seconds(6))
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(7_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(12_000))
        #expect(!changed)
        changed = ladder.update(bitrate: 600_000, usable: 2_000_000, framesDropped: false, at: self.at(13_000))
        #expect(changed)
        // Frame rate, at the smallest size: 320×180 at 30 fps, then 20.
        var tiny = VideoAdaptation(
            size: RemoteDisplayConfiguration.Resolution(width: 640, height: 360), frameRate: 30,
            minimumBitrate: 64_000, enabled: true)
        var time = 0
        while tiny.level.frameRate == 30 {
            _ = tiny.update(bitrate: 64_000, usable: nil, framesDropped: true, at: self.at(time))
            time += 500
        }
        #expect(tiny.level == VideoAdaptation.Level(scale: 0.5, frameRate: 20))
    }
}
