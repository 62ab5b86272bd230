/// Keeps one setting of a sink and its device in step, both ways, without
/// echo: the volume (0…1), or the mute (0 or 1) — each its own link, since
/// the sound server reports a sink's volume and mute as they change one at
/// a time.
///
/// A report from either side is the echo of a value this link asked that
/// side for (dropped), the side's value again (the server reports a sink
/// for other reasons too; nothing changed), or a change a person made,
/// which the other side is asked to follow. When changes cross — the sink
/// dragged while the device is turned up — each side may apply the other's
/// after its own; once no echo is awaited, a side that differs from the
/// latest person's change is set to it. So the two sides settle on the
/// latest change and never ask each other back and forth. At the start the
/// device, reported after the sink, wins.
///
/// A fixed link (a device whose volume cannot be set: a speaker behind an
/// amplifier, some TVs over HDMI) holds the sink at 1 and asks the device
/// nothing.
struct VolumeLink: Sendable {
    /// What the link asks for.
    enum Step: Sendable, Hashable {
        /// Set the sink to this value.
        case setSink(Double)
        /// Set the device to this value.
        case setDevice(Double)
    }

    private(set) var device: Double?
    private(set) var sink: Double?
    /// Whether the device cannot follow: the sink is held at 1.
    var isFixed = false
    /// The latest change a person made, on either side.
    private var latest: Double?
    private var awaitedSink: [Double] = []
    private var awaitedDevice: [Double] = []
    /// The most requests awaited per side; a side that never answers cannot grow the link.
    private static let awaitedLimit = 8

    /// Whether two values are the same within the sides' rounding (libpulse's 1/65 536, a device's 0.01).
    static func same(_ one: Double, _ other: Double) -> Bool { abs(one - other) < 0.005 }

    /// The device reported its value.
    mutating func deviceReported(_ value: Double) -> [Step] {
        let previous = self.device
        self.device = value
        if let echo = self.awaitedDevice.firstIndex(where: { Self.same($0, value) }) {
            self.awaitedDevice.removeFirst(echo + 1)
            return self.settle()
        }
        return self.changed(to: value, from: previous)
    }

    /// The sink reported its value.
    mutating func sinkReported(_ value: Double) -> [Step] {
        let previous = self.sink
        self.sink = value
        if let echo = self.awaitedSink.firstIndex(where: { Self.same($0, value) }) {
            self.awaitedSink.removeFirst(echo + 1)
            return self.settle()
        }
        return self.changed(to: value, from: previous)
    }

    /// A report that is not an echo: a person's change, unless the side reported its value again.
    private mutating func changed(to value: Double, from previous: Double?) -> [Step] {
        if let previous, Self.same(previous, value) { return self.settle() }
        self.latest = value
        return self.follow(value)
    }

    /// Both sides asked to be `value`, each only where it differs.
    private mutating func follow(_ value: Double) -> [Step] {
        var steps: [Step] = []
        let sinkTarget = self.isFixed ? 1 : value
        if self.sink.map({ !Self.same($0, sinkTarget) }) ?? true {
            self.awaitedSink = Array((self.awaitedSink + [sinkTarget]).suffix(Self.awaitedLimit))
            steps.append(.setSink(sinkTarget))
        }
        if !self.isFixed, let device = self.device, !Self.same(device, value) {
            self.awaitedDevice = Array((self.awaitedDevice + [value]).suffix(Self.awaitedLimit))
            steps.append(.setDevice(value))
        }
        return steps
    }

    /// With no echo awaited, the sides that differ from the latest change are set to it.
    private mutating func settle() -> [Step] {
        guard self.awaitedSink.isEmpty, self.awaitedDevice.isEmpty, let latest = self.latest else { return [] }
        return self.follow(latest)
    }
}
