/// The target delay of each member of a group, so that every member plays
/// a sample at the same moment although their links differ.
///
/// A Cast receiver plays a frame its target delay after the frame's capture
/// time as it estimates it, and it estimates the sender's clock from when
/// Sender Reports arrive, so it plays late by its link's one-way delay
/// (Open Screen's receiver_impl.cc says so where it measures the offset:
/// "the `measured_offset` below will be larger than the true value by that
/// amount"). The sender measures each member's round trips from its
/// receiver reports; half of the shortest recent one (the link without
/// queueing) is the one-way delay of a link as long both ways. Members on
/// shorter links get that much more target delay than the longest one,
/// which keeps the configured one: nobody's delay shrinks, so no queued
/// frame turns late.
///
/// The first ``deadBand`` of a difference is left alone, and a change
/// smaller than ``smallestChange`` is not sent: that much the round trips
/// wobble by on a loaded machine (a receiver's feedback waits for its own
/// work), and following the wobble moved equal links apart (measured: 13 ms
/// at the 99th percentile on a lossy, jittery link, against 3.6 ms left
/// alone).
enum PlayoutAlignment {
    /// The part of a one-way difference taken for noise.
    static let deadBand = Duration.milliseconds(3)
    /// The smallest change of a member's target delay that is sent.
    static let smallestChange = Duration.milliseconds(5)
    /// How often the round trips are read.
    static let interval = Duration.milliseconds(250)

    /// Target delays by member for `base` and the round trips measured so
    /// far; a member without one yet keeps `base`.
    static func targetDelays(base: Duration, roundTrips: [String: Duration]) -> [String: Duration] {
        guard let longest = roundTrips.values.max() else { return [:] }
        return roundTrips.mapValues { base + max((longest - $0) / 2 - Self.deadBand, .zero) }
    }

    /// Whether `current` is far enough from `wanted` to send a change (each
    /// change is a jump in what the device plays).
    static func isWorthChanging(_ current: Duration, to wanted: Duration) -> Bool {
        let difference = current - wanted
        return (difference < .zero ? .zero - difference : difference) >= Self.smallestChange
    }
}
