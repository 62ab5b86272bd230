import Testing

@_spi(Receiver) @testable import CastStreaming

@Suite(.timeLimit(.minutes(3))) struct HostTimeTests {
    /// Host times and durations in whole nanoseconds, both signs: the concrete
    /// conversions the sender uses agree with the standard library's generic ones.
    @Test func durationsInNanosecondsAgreeWithTheStandardLibrary() {
        for nanoseconds: Int64 in [0, 1, 999_999_999, 1_000_000_000, 6_500_000, -1, -6_500_000, -2_000_000_001] {
            #expect(Duration(nanoseconds: nanoseconds) == .nanoseconds(nanoseconds), "\(nanoseconds)")
            #expect(Duration(nanoseconds: nanoseconds).inNanoseconds == nanoseconds, "\(nanoseconds)")
            let time = HostTime(nanoseconds: 5_000_000_000)
            #expect(time.duration(to: time.advanced(by: .nanoseconds(nanoseconds))) == .nanoseconds(nanoseconds))
        }
        #expect(
            HostTime(nanoseconds: 0).advanced(byFrames: -312, sampleRate: 48_000)
                == HostTime(nanoseconds: 0).advanced(by: .zero - .nanoseconds(6_500_000)))
    }
}
