import Testing

@_spi(Receiver) @testable import CastStreaming

/// Low latency's target delay on a made-up clock: it comes down towards
/// what the link needs a tenth at a time, rises at once when frames take
/// longer or dropped frames recur, and stays within its range.
@Suite(.timeLimit(.minutes(1))) struct PlayoutDelayControllerTests {
    static let start = HostTime(nanoseconds: 1_000_000_000_000)

    static func at(_ milliseconds: Int) -> HostTime { Self.start.advanced(by: .milliseconds(milliseconds)) }

    /// A controller whose session started: its first frame, captured 100 ms
    /// before the start, acknowledged at it (and not counted).
    static func started(_ range: ClosedRange<Duration>) -> PlayoutDelayController {
        var controller = PlayoutDelayController(range: range)
        controller.recordDelivery(captureTime: Self.at(-100), arrival: Self.at(0))
        return controller
    }

    /// Feeds `count` frames that each took `delivery` to arrive, ending at `time` ms.
    static func deliver(_ controller: inout PlayoutDelayController, count: Int, taking delivery: Int, at time: Int) {
        for frame in 0..<count {
            let capture = Self.at(time - delivery - (count - frame))
            controller.recordDelivery(captureTime: capture, arrival: capture.advanced(by: .milliseconds(delivery)))
        }
    }

    /// Steps every 500 ms from `from` ms to `to` ms; the delays chosen, starting from `delay`.
    static func steps(
        _ controller: inout PlayoutDelayController, from: Int, to: Int, delay: inout Duration, delivery: Int? = nil
    ) -> [Int] {
        var chosen: [Int] = []
        for time in stride(from: from, through: to, by: 500) {
            if let delivery { Self.deliver(&controller, count: 15, taking: delivery, at: time) }
            if let next = controller.update(at: Self.at(time), current: delay) {
                delay = next
                chosen.append(Int(delay / .milliseconds(1)))
            }
        }
        return chosen
    }

    @Test func aQuickLinkBringsTheDelayDownATenthAtATimeToWhatItNeeds() {
        var controller = Self.started(.milliseconds(60) ... .milliseconds(400))
        var delay = Duration.milliseconds(120)
        #expect(controller.update(at: Self.at(0), current: delay) == nil, "the first call only sets the clock")
        // 20 ms deliveries: 20 × 1.25 + 30 = 55 ms, below the floor of 60.
        let chosen = Self.steps(&controller, from: 500, to: 6_000, delay: &delay, delivery: 20)
        #expect(chosen == [108, 97, 87, 78, 70, 63, 60])
        #expect(delay == .milliseconds(60))
    }

    @Test func slowerDeliveriesRaiseTheDelayAtOnceWithinTheRange() {
        var controller = Self.started(.milliseconds(60) ... .milliseconds(400))
        var delay = Duration.milliseconds(120)
        _ = controller.update(at: Self.at(0), current: delay)
        // 120 ms deliveries: twice that (the in-flight limit is half the delay), at the first step.
        #expect(Self.steps(&controller, from: 500, to: 500, delay: &delay, delivery: 120) == [240])
        // 400 ms deliveries would want 800 ms: held at the ceiling.
        let capped = Self.steps(&controller, from: 1_000, to: 5_000, delay: &delay, delivery: 400)
        #expect(capped.last == 400)
        #expect(delay == .milliseconds(400))
    }

    @Test func twoSlowDeliveriesInTheWindowRaiseTheDelayToTwiceTheirsAndOneDoesNot() {
        var controller = Self.started(.milliseconds(60) ... .milliseconds(400))
        let delay = Duration.milliseconds(80)
        _ = controller.update(at: Self.at(0), current: delay)
        // 20 ms deliveries and one of 60 ms (a lost packet resent): 55 ms wanted, the delay comes down.
        Self.deliver(&controller, count: 30, taking: 20, at: 400)
        Self.deliver(&controller, count: 1, taking: 60, at: 450)
        #expect(controller.update(at: Self.at(500), current: delay) == .milliseconds(72))
        // A second: frames that slow are admitted only under 120 ms.
        Self.deliver(&controller, count: 1, taking: 60, at: 900)
        #expect(controller.update(at: Self.at(1_000), current: .milliseconds(72)) == .milliseconds(120))
    }

    @Test func aLoneDroppedFrameKeepsTheDelayAndRecurringDropsRaiseItByAQuarter() {
        var controller = Self.started(.milliseconds(60) ... .milliseconds(400))
        var delay = Duration.milliseconds(100)
        _ = controller.update(at: Self.at(0), current: delay)
        Self.deliver(&controller, count: 30, taking: 20, at: 400)
        controller.recordDrop()
        // One drop: the mode's accepted cost; the delay comes down as the link allows.
        #expect(controller.update(at: Self.at(500), current: delay) == .milliseconds(90))
        delay = .milliseconds(90)
        // A drop in the next step too: they recur.
        controller.recordDrop()
        #expect(controller.update(at: Self.at(1_000), current: delay) == .milliseconds(112))
        delay = .milliseconds(112)
        #expect(controller.update(at: Self.at(1_200), current: delay) == nil, "at most one step per 500 ms")
        #expect(controller.update(at: Self.at(1_500), current: delay) == .milliseconds(100), "then down again")
        delay = .milliseconds(100)
        // Two drops in one step, after a step without any.
        controller.recordDrop()
        controller.recordDrop()
        #expect(controller.update(at: Self.at(2_000), current: delay) == .milliseconds(125))
    }

    /// The session's start is not the link: the first frames, slow to
    /// arrive, and frames dropped before any acknowledgement leave the delay
    /// to come down as the link then allows.
    @Test func whatHappensBeforeTheFirstAcknowledgementIsNotCounted() {
        var controller = PlayoutDelayController(range: .milliseconds(60) ... .milliseconds(400))
        let delay = Duration.milliseconds(120)
        _ = controller.update(at: Self.at(0), current: delay)
        controller.recordDrop()
        controller.recordDrop()
        // The first frame, captured at 0, acknowledged at 120 ms; the next two, captured
        // before that, at 130 and 140 ms.
        controller.recordDelivery(captureTime: Self.at(0), arrival: Self.at(120))
        controller.recordDelivery(captureTime: Self.at(33), arrival: Self.at(130))
        controller.recordDelivery(captureTime: Self.at(66), arrival: Self.at(140))
        Self.deliver(&controller, count: 10, taking: 20, at: 450)
        #expect(controller.update(at: Self.at(500), current: delay) == .milliseconds(108))
        // Counted from the start, the same would have lifted it to twice the second slowest.
        var counted = Self.started(.milliseconds(60) ... .milliseconds(400))
        _ = counted.update(at: Self.at(0), current: delay)
        counted.recordDrop()
        counted.recordDrop()
        counted.recordDelivery(captureTime: Self.at(10), arrival: Self.at(130))
        counted.recordDelivery(captureTime: Self.at(43), arrival: Self.at(140))
        Self.deliver(&counted, count: 10, taking: 20, at: 450)
        #expect(counted.update(at: Self.at(500), current: delay) == .milliseconds(194))
    }
}
