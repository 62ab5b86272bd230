/// 64-bit NTP timestamps (RFC 3550 §4) for sender reports: whole seconds
/// in the high 32 bits, the fraction in the low 32. Cast Streaming only
/// needs a clock both reports and feedback agree on, so the sender's NTP
/// time is its host clock (``HostTime``) in NTP format.
@_spi(Receiver) public enum NTPTime {
    /// `time` as an NTP timestamp.
    @_spi(Receiver) public static func from(_ time: HostTime) -> UInt64 {
        let nanoseconds = UInt64(max(time.nanoseconds, 0))
        let seconds = nanoseconds / 1_000_000_000
        let fraction = (nanoseconds % 1_000_000_000) << 32 / 1_000_000_000
        return seconds << 32 | fraction
    }

    /// The host time an NTP timestamp stands for.
    @_spi(Receiver) public static func hostTime(_ ntp: UInt64) -> HostTime {
        let seconds = Int64(ntp >> 32)
        let fraction = Int64(ntp & 0xFFFF_FFFF)
        return HostTime(nanoseconds: seconds * 1_000_000_000 + (fraction * 1_000_000_000) >> 32)
    }

    /// The middle 32 bits, as report blocks echo them (LSR).
    @_spi(Receiver) public static func compact(_ ntp: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ntp >> 16)
    }

    /// A duration in 1/65536 s, the unit of DLSR.
    @_spi(Receiver) public static func compactDuration(_ duration: Duration) -> UInt32 {
        let nanoseconds = max(duration.inNanoseconds, 0)
        return UInt32(clamping: nanoseconds * 65_536 / 1_000_000_000)
    }

    /// A DLSR value as a duration.
    @_spi(Receiver) public static func duration(compact value: UInt32) -> Duration {
        Duration(nanoseconds: Int64(value) * 1_000_000_000 / 65_536)
    }
}

extension Duration {
    /// `nanoseconds` as a duration, by the concrete `Int64` initializer: the
    /// standard library's `.nanoseconds(_:)` is generic over `BinaryInteger`
    /// and, unspecialized across the module boundary, goes through `Int128`
    /// conversions by protocol witnesses — a few percent of a 10 ms audio
    /// frame's CPU, where the sender takes times several times a frame.
    @_spi(Receiver) public init(nanoseconds: Int64) {
        self.init(
            secondsComponent: nanoseconds / 1_000_000_000,
            attosecondsComponent: nanoseconds % 1_000_000_000 * 1_000_000_000)
    }

    /// Whole nanoseconds (attoseconds below a nanosecond are dropped).
    @_spi(Receiver) public var inNanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
