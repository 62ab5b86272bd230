/// When to try again after a connection is lost: exponential back-off with
/// jitter, a cap, and a limit on attempts. The session layer uses it; it is
/// a value so it can be tested and shared freely.
///
/// Attempt `n` (from 1) waits `initialDelay × multiplierⁿ⁻¹`, capped at
/// `maximumDelay`, then moved by up to ±`jitter` of itself at random.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before the first attempt. Default 1 s.
    public var initialDelay: Duration
    /// How much each wait grows over the previous one. Default 2.
    public var multiplier: Double
    /// The longest wait, before jitter. Default 30 s (Chrome's cap).
    public var maximumDelay: Duration
    /// The fraction of a wait by which it may move either way, 0...1. Default 0.5 (Chrome's 50 %).
    public var jitter: Double
    /// How many attempts before giving up; `nil` for no limit. Default 10.
    public var maximumAttempts: Int?

    /// Creates a policy; out-of-range values are clamped (multiplier ≥ 1, jitter 0...1, delays ≥ 0).
    public init(
        initialDelay: Duration = .seconds(1),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30),
        jitter: Double = 0.5,
        maximumAttempts: Int? = 10
    ) {
        self.initialDelay = max(initialDelay, .zero)
        self.multiplier = max(multiplier, 1)
        self.maximumDelay = max(maximumDelay, .zero)
        self.jitter = min(max(jitter, 0), 1)
        self.maximumAttempts = maximumAttempts
    }

    /// Never reconnects.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The wait before attempt `attempt` (1 is the first), or `nil` when the
    /// policy allows no such attempt.
    public func delay(
        beforeAttempt attempt: Int,
        using generator: inout some RandomNumberGenerator
    ) -> Duration? {
        guard attempt >= 1 else { return nil }
        if let maximumAttempts = self.maximumAttempts, attempt > maximumAttempts { return nil }
        let initial = self.initialDelay.inSeconds
        let cap = self.maximumDelay.inSeconds
        // pow() grows without bound; stop growing once past the cap.
        var base = initial
        var step = 1
        while step < attempt && base < cap {
            base *= self.multiplier
            step += 1
        }
        base = min(base, cap)
        let spread = base * self.jitter
        let jittered = spread > 0 ? Double.random(in: (base - spread)...(base + spread), using: &generator) : base
        return .nanoseconds(Int64((max(jittered, 0) * 1e9).rounded()))
    }

    /// The wait before attempt `attempt`, with the system's random numbers.
    public func delay(beforeAttempt attempt: Int) -> Duration? {
        var generator = SystemRandomNumberGenerator()
        return self.delay(beforeAttempt: attempt, using: &generator)
    }
}
