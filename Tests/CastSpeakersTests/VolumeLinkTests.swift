import Testing

@testable import CastSpeakers

/// A sink's volume (or mute) and its device's, in memory: each change
/// reaches the other side once, its echo and repeated reports are dropped,
/// crossing changes settle on the latest one whatever order the reports
/// come in, and a fixed-volume device keeps its sink at 100 %.
@Suite(.timeLimit(.minutes(1))) struct VolumeLinkTests {
    /// A link whose sink and device both stand at `value`.
    static func settled(at value: Double) -> VolumeLink {
        var link = VolumeLink()
        _ = link.sinkReported(value)
        _ = link.deviceReported(value)
        return link
    }

    @Test func theDevicesVolumeReachesTheSinkAndItsEchoIsDropped() {
        var link = VolumeLink()
        #expect(link.deviceReported(0.6) == [.setSink(0.6)])
        // The sink reports the change it was asked for: nothing goes back to the device.
        #expect(link.sinkReported(0.6).isEmpty)
        // Reported again (the server reports a sink for other reasons too): still nothing.
        #expect(link.sinkReported(0.6).isEmpty)
        #expect(link.deviceReported(0.6).isEmpty)
    }

    @Test func atTheStartTheDeviceWinsOverTheSink() {
        var link = VolumeLink()
        #expect(link.sinkReported(1).isEmpty)
        #expect(link.deviceReported(0.35) == [.setSink(0.35)])
        #expect(link.sinkReported(0.35).isEmpty)
        #expect(link.device == 0.35 && link.sink == 0.35)
    }

    @Test func theSinksChangesReachTheDeviceAndTheirEchoesAreDropped() {
        var link = Self.settled(at: 0.5)
        #expect(link.sinkReported(0.3) == [.setDevice(0.3)])
        #expect(link.deviceReported(0.3).isEmpty)
        #expect(link.sinkReported(0.9) == [.setDevice(0.9)])
        #expect(link.deviceReported(0.9).isEmpty)
        #expect(link.device == 0.9)
    }

    /// Plays the link's requests back as each side's report (the device's
    /// first, or the sink's), until nothing is asked; the number of reports.
    static func exchange(_ link: inout VolumeLink, _ steps: [VolumeLink.Step], deviceFirst: Bool) -> Int {
        var toSink = steps.compactMap { if case .setSink(let value) = $0 { value } else { nil } }
        var toDevice = steps.compactMap { if case .setDevice(let value) = $0 { value } else { nil } }
        var reports = 0
        while (!toSink.isEmpty || !toDevice.isEmpty) && reports < 50 {
            reports += 1
            let next =
                !toDevice.isEmpty && (deviceFirst || toSink.isEmpty)
                ? link.deviceReported(toDevice.removeFirst()) : link.sinkReported(toSink.removeFirst())
            for step in next {
                switch step {
                case .setSink(let value): toSink.append(value)
                case .setDevice(let value): toDevice.append(value)
                }
            }
        }
        return reports
    }

    @Test(arguments: [true, false])
    func crossingChangesSettleOnTheLatestInEitherOrder(deviceFirst: Bool) {
        var link = Self.settled(at: 0.5)
        // The user drags the sink to 0.2 while someone turns the device up to 0.8;
        // the device's own report arrives before it applies our 0.2.
        let toDevice = link.sinkReported(0.2)
        #expect(toDevice == [.setDevice(0.2)])
        let toSink = link.deviceReported(0.8)
        #expect(toSink == [.setSink(0.8)])
        // Then each side applies what it was asked for, the reports arriving in either order.
        let reports = Self.exchange(&link, toDevice + toSink, deviceFirst: deviceFirst)
        #expect(reports < 10, "the two sides kept changing each other")
        #expect(link.device.map { VolumeLink.same($0, 0.8) } == true, "\(String(describing: link.device))")
        #expect(link.sink.map { VolumeLink.same($0, 0.8) } == true, "\(String(describing: link.sink))")
    }

    @Test func aDeviceThatRoundsIsNotAskedAgain() {
        var link = Self.settled(at: 0.5)
        #expect(link.sinkReported(0.437) == [.setDevice(0.437)])
        // The device keeps two decimals: 0.44 is the echo of 0.437.
        #expect(link.deviceReported(0.44).isEmpty)
    }

    @Test func muteAndVolumeChangingOneAtATimeDoNotUndoEachOther() {
        // The server applies a volume and a mute as two changes; each link sees only its own.
        var volume = VolumeLink()
        var mute = VolumeLink()
        _ = volume.sinkReported(1)
        _ = mute.sinkReported(0)
        #expect(volume.deviceReported(0.6) == [.setSink(0.6)])
        #expect(mute.deviceReported(1) == [.setSink(1)])
        // The sink: volume first (still unmuted), then muted.
        #expect(volume.sinkReported(0.6).isEmpty)
        #expect(mute.sinkReported(0).isEmpty, "the unchanged mute was taken for a change")
        #expect(volume.sinkReported(0.6).isEmpty)
        #expect(mute.sinkReported(1).isEmpty)
        #expect(volume.device == 0.6 && mute.device == 1)
    }

    @Test func aFixedVolumeDeviceKeepsItsSinkAtFullVolumeAndIsAskedNothing() {
        var link = VolumeLink()
        link.isFixed = true
        #expect(link.deviceReported(0.7) == [.setSink(1)])
        #expect(link.sinkReported(1).isEmpty)
        #expect(link.sinkReported(0.4) == [.setSink(1)])
        #expect(link.sinkReported(1).isEmpty)
        #expect(link.device == 0.7)
    }

    @Test func aSideThatNeverAnswersCannotGrowTheLink() {
        var link = Self.settled(at: 0.5)
        for step in 1...1_000 {
            _ = link.sinkReported(Double(step % 100) / 100)
        }
        // The device answers only the last request: the link settles on it.
        #expect(link.deviceReported(0.0).isEmpty)
        #expect(link.device == 0.0)
    }
}
