/// A subsystem name pattern: a literal name, or a glob where `*` matches any
/// run of characters (dots included) and `?` matches exactly one.
///
/// `Transport.*` matches every subsystem under `Transport`; `*Session`
/// matches `CastSession` and `RemoteDisplaySession`. This is the SDK's
/// `GCKLoggerFilter` rule for class names, applied to subsystems.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    private let scalars: [Unicode.Scalar]

    /// Creates a pattern from its text.
    public init(_ pattern: String) {
        self.pattern = pattern
        self.scalars = Array(pattern.unicodeScalars)
    }

    /// Whether the pattern has no wildcard, so it matches only its own text.
    public var isLiteral: Bool {
        !self.scalars.contains { $0 == "*" || $0 == "?" }
    }

    /// How many characters the pattern pins down: non-wildcard characters
    /// plus one per `?`. A higher number is a more specific pattern.
    public var specificity: Int {
        self.scalars.count { $0 != "*" }
    }

    public var description: String { self.pattern }

    /// Whether `name` matches the whole pattern.
    ///
    /// Runs in O(pattern × name) at worst and linear time for the usual
    /// patterns; it never recurses, so no input can exhaust the stack.
    public func matches(_ name: String) -> Bool {
        let text = Array(name.unicodeScalars)
        var p = 0
        var t = 0
        // The last `*` seen and the text position it currently absorbs up to.
        var star: Int? = nil
        var starText = 0
        while t < text.count {
            if p < self.scalars.count, self.scalars[p] == "?" || self.scalars[p] == text[t] {
                p += 1
                t += 1
            } else if p < self.scalars.count, self.scalars[p] == "*" {
                star = p
                starText = t
                p += 1
            } else if let star {
                // Let the last `*` absorb one more character and retry after it.
                p = star + 1
                starText += 1
                t = starText
            } else {
                return false
            }
        }
        while p < self.scalars.count, self.scalars[p] == "*" {
            p += 1
        }
        return p == self.scalars.count
    }
}
