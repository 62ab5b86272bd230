/// The low-latency mode's target delay: the smallest the link keeps frames
/// on time with, kept within a range and followed as the link changes.
///
/// Each acknowledged frame gives a delivery time: from its capture to its
/// arrival at the receiver (the feedback's arrival less half the round
/// trip). Every 500 ms the delay the link needs is the 95th percentile of
/// the last 64 deliveries, a quarter more, plus 30 ms for the receiver to
/// decode and render, and at least twice the second slowest of them (the
/// sender admits a frame only while the oldest unacknowledged one is at
/// most half the delay older, Open Screen's in-flight limit, so a frame
/// whose lost packet is resent needs twice its delivery) — at least the
/// range's floor. A frame dropped because
/// it could not be sent in time is what this mode accepts rather than
/// waiting (a key frame follows it): a lone drop leaves the delay as it is,
/// while drops that recur — two in one step, or one in each of two steps
/// in a row — raise it by a quarter at once. (Each raise lifts every later
/// frame's delay, and a lone drop comes from one lost packet whose
/// retransmission missed the in-flight limit, not from a link that needs
/// more.) What happens before the first acknowledgement is the session's
/// start, not the link: the frames captured before it arrived (the first
/// key frame, the encoder's first frames, ~120 ms to deliver on a link
/// whose frames then take 20–50 ms) and the frames dropped behind them are
/// not counted — counted, they lifted a 10 s stream's delay to 180 ms for
/// its first two seconds. The delay rises at once when the link needs more, and comes down by at most
/// a tenth per step, so that a single quick frame does not undo a
/// measured need. Changes reach the receiver in band (the RTP adaptive
/// playout delay extension, as every ``RemoteDisplaySession/targetDelay``
/// change does).
///
/// A plain value on the sender engine's clock: tests drive it with
/// made-up deliveries and times.
package struct PlayoutDelayController {
    /// The delays it chooses among.
    package let range: ClosedRange<Duration>
    /// The deliveries heard, nanoseconds, oldest overwritten first.
    private var deliveries: [Int64] = []
    private var nextDelivery = 0
    /// Frames dropped since the last step, and whether the step before had any.
    private var dropsSinceUpdate = 0
    private var droppedInPreviousStep = false
    private var nextUpdate: HostTime?
    /// When the first acknowledgement arrived; `nil` before.
    private var started: HostTime?

    static let interval: Duration = .milliseconds(500)
    static let window = 64
    static let headroom: Duration = .milliseconds(30)

    package init(range: ClosedRange<Duration>) {
        self.range = range
        self.deliveries.reserveCapacity(Self.window)
    }

    /// A frame captured at `captureTime` reached the receiver at `arrival`;
    /// the first such news starts the measurement.
    package mutating func recordDelivery(captureTime: HostTime, arrival: HostTime) {
        let started = self.started ?? arrival
        self.started = started
        guard captureTime >= started else { return }
        let nanoseconds = max(captureTime.duration(to: arrival).inNanoseconds, 0)
        if self.deliveries.count < Self.window {
            self.deliveries.append(nanoseconds)
        } else {
            self.deliveries[self.nextDelivery] = nanoseconds
        }
        self.nextDelivery = (self.nextDelivery + 1) % Self.window
    }

    /// A frame could not be sent before its time (not counted before the first acknowledgement).
    package mutating func recordDrop() {
        guard self.started != nil else { return }
        self.dropsSinceUpdate += 1
    }

    /// The delay to use from `now` when it should change from `current`; `nil` to keep it.
    package mutating func update(at now: HostTime, current: Duration) -> Duration? {
        guard let due = self.nextUpdate, due <= now else {
            if self.nextUpdate == nil { self.nextUpdate = now.advanced(by: Self.interval) }
            return nil
        }
        self.nextUpdate = now.advanced(by: Self.interval)
        let now = current.inNanoseconds
        var wanted = self.range.lowerBound.inNanoseconds
        if !self.deliveries.isEmpty {
            let sorted = self.deliveries.sorted()
            let high = sorted[min(sorted.count - 1, sorted.count * 95 / 100)]
            // The sender admits a frame while the oldest unacknowledged one is
            // at most half the delay older (Open Screen's in-flight limit): the
            // slow recent deliveries — a lost packet's resend — need twice theirs.
            // The second slowest of the window: one frame stuck twice is a lone drop.
            let slow = sorted[max(0, sorted.count - 2)]
            wanted = max(wanted, high + high / 4 + Self.headroom.inNanoseconds, slow * 2)
        }
        let recurring = self.dropsSinceUpdate >= 2 || (self.dropsSinceUpdate == 1 && self.droppedInPreviousStep)
        if recurring { wanted = max(wanted, now + now / 4) }
        self.droppedInPreviousStep = self.dropsSinceUpdate > 0
        self.dropsSinceUpdate = 0
        let next = wanted >= now ? wanted : max(wanted, now - now / 10)
        // Whole milliseconds: what the RTP extension carries, so sender and receiver agree.
        let clamped = min(max(next, self.range.lowerBound.inNanoseconds), self.range.upperBound.inNanoseconds)
        let milliseconds = clamped / 1_000_000 * 1_000_000
        return milliseconds == now ? nil : Duration(nanoseconds: milliseconds)
    }
}
