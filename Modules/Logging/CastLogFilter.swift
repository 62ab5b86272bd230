/// Which records pass: a minimum level, overridden per subsystem by literal
/// names or glob patterns.
///
/// The SDK's `GCKLoggerFilter`. For a subsystem, the level comes from
/// 1. a literal rule naming it exactly;
/// 2. otherwise the matching glob with the highest ``GlobPattern/specificity``
///    (the rule set last wins a tie);
/// 3. otherwise ``minimumLevel``.
///
/// A rule may be more or less talkative than the minimum: `Transport.*` at
/// ``CastLogLevel/verbose`` with a minimum of ``CastLogLevel/warning`` shows
/// everything from the transport and only problems from the rest; a rule at
/// ``CastLogLevel/none`` silences its subsystems.
///
/// ```swift
/// var filter = CastLogFilter(minimumLevel: .warning)
/// filter.setLevel(.verbose, forSubsystems: ["Transport.*", "*Session"])
/// CastLogger.shared.filter = filter
/// ```
public struct CastLogFilter: Sendable, Hashable {
    /// One override: the pattern and the level it sets.
    public struct Rule: Sendable, Hashable {
        /// Which subsystems the rule covers.
        public var pattern: GlobPattern
        /// The least important level that passes for them.
        public var level: CastLogLevel
    }

    /// The least important level that passes where no rule applies.
    public var minimumLevel: CastLogLevel

    /// The overrides, in the order they were set.
    public private(set) var rules: [Rule] = []

    /// Creates a filter with no overrides. The default shows ``CastLogLevel/info`` and above.
    public init(minimumLevel: CastLogLevel = .info) {
        self.minimumLevel = minimumLevel
    }

    /// Sets `level` for every subsystem the patterns match, replacing any
    /// earlier rule with the same pattern.
    public mutating func setLevel(_ level: CastLogLevel, forSubsystems patterns: [String]) {
        for pattern in patterns.map(GlobPattern.init) {
            self.rules.removeAll { $0.pattern == pattern }
            self.rules.append(Rule(pattern: pattern, level: level))
        }
    }

    /// Removes the rules with these exact patterns; other rules stay.
    public mutating func removeLevel(forSubsystems patterns: [String]) {
        let patterns = Set(patterns.map(GlobPattern.init))
        self.rules.removeAll { patterns.contains($0.pattern) }
    }

    /// The least important level that passes for `subsystem`.
    public func level(forSubsystem subsystem: String) -> CastLogLevel {
        var best: Rule? = nil
        for rule in self.rules where rule.pattern.matches(subsystem) {
            if rule.pattern.isLiteral {
                return rule.level
            }
            if let current = best, current.pattern.specificity > rule.pattern.specificity {
                continue
            }
            best = rule
        }
        return best?.level ?? self.minimumLevel
    }

    /// Whether a record at `level` from `subsystem` passes.
    public func admits(_ level: CastLogLevel, fromSubsystem subsystem: String) -> Bool {
        level != .none && level >= self.level(forSubsystem: subsystem)
    }
}
