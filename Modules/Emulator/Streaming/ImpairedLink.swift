@_spi(Receiver) package import CastStreaming

/// The emulated network between sender and receiver: decides, per
/// datagram, whether it is lost and when it arrives. A value, used under
/// the receiver's lock.
package struct ImpairedLink {
    package private(set) var impairment: NetworkImpairment
    private var random: SeededRandom
    private var burstRemaining = 0
    private var linkFreeAt = HostTime(nanoseconds: 0)
    package private(set) var dropped = 0

    package init(_ impairment: NetworkImpairment) {
        self.impairment = impairment
        self.random = SeededRandom(seed: impairment.seed)
    }

    /// Changes the impairment from now on (the random sequence continues).
    package mutating func update(_ impairment: NetworkImpairment) {
        self.impairment = impairment
    }

    /// When a datagram of `size` bytes sent at `now` arrives, or `nil` if it is lost.
    package mutating func arrival(ofBytes size: Int, at now: HostTime) -> HostTime? {
        let impairment = self.impairment
        if self.burstRemaining > 0 {
            self.burstRemaining -= 1
            self.dropped += 1
            return nil
        }
        if impairment.lossRate > 0, self.random.nextUnit() < impairment.lossRate {
            self.burstRemaining = max(impairment.burstLength, 1) - 1
            self.dropped += 1
            return nil
        }
        var departure = now
        if let rate = impairment.bandwidthLimit, rate > 0 {
            let start = max(now, self.linkFreeAt)
            guard now.duration(to: start) <= impairment.queueLimit else {
                self.dropped += 1
                return nil
            }
            self.linkFreeAt = start.advanced(by: .nanoseconds(Int64(size) * 8 * 1_000_000_000 / Int64(rate)))
            departure = self.linkFreeAt
        }
        var delay = impairment.delay
        if impairment.jitter > .zero {
            delay += impairment.jitter * self.random.nextUnit()
        }
        if impairment.reorderRate > 0, self.random.nextUnit() < impairment.reorderRate {
            delay += .milliseconds(5)
        }
        return departure.advanced(by: delay)
    }
}

/// SplitMix64: a small, fast, seedable generator, so impairment repeats run to run.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var value = self.state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// Uniform in 0..<1.
    mutating func nextUnit() -> Double {
        Double(self.next() >> 11) / Double(1 << 53)
    }
}
