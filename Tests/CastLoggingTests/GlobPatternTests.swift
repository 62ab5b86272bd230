import CastLogging
import Testing

@Suite(.timeLimit(.minutes(3))) struct GlobPatternTests {
    @Test(arguments: [
        ("Transport", "Transport", true),
        ("Transport", "Transport.Heartbeat", false),
        ("Transport", "transport", false),
        ("Transport.*", "Transport.Heartbeat", true),
        ("Transport.*", "Transport.Heartbeat.Timer", true),
        ("Transport.*", "Transport.", true),
        ("Transport.*", "Transport", false),
        ("Transport.*", "Discovery.Transport.x", false),
        ("*Session", "CastSession", true),
        ("*Session", "RemoteDisplaySession", true),
        ("*Session", "Session", true),
        ("*Session", "SessionManager", false),
        ("GCK*Session", "GCKCastSession", true),
        ("GCK*Session", "GCKSessionSession", true),
        ("GCK*Session", "XGCKCastSession", false),
        ("*", "", true),
        ("*", "Anything.At.All", true),
        ("", "", true),
        ("", "a", false),
        ("?", "a", true),
        ("?", "", false),
        ("?", "ab", false),
        ("a?c", "abc", true),
        ("a?c", "ac", false),
        ("a*b*c", "aXXbYYc", true),
        ("a*b*c", "aXXbYY", false),
        ("a*b*c", "abcabc", true),
        ("**", "x", true),
        ("*.*", "Media", false),
        ("Café.*", "Café.Ü", true),
        ("?é", "Cé", true),
    ])
    func matches(pattern: String, name: String, expected: Bool) {
        #expect(GlobPattern(pattern).matches(name) == expected)
    }

    @Test func literalAndSpecificity() {
        #expect(GlobPattern("Transport.Heartbeat").isLiteral)
        #expect(!GlobPattern("Transport.*").isLiteral)
        #expect(!GlobPattern("a?").isLiteral)
        #expect(GlobPattern("Transport.*").specificity == 10)
        #expect(GlobPattern("a?c").specificity == 3)
        #expect(GlobPattern("*").specificity == 0)
    }

    /// A pattern that makes naive recursive matchers exponential; the
    /// backtracking matcher must still give the right answer.
    @Test func manyStarsAgainstLongNonMatchingName() {
        let pattern = GlobPattern(String(repeating: "a*", count: 30) + "b")
        let name = String(repeating: "a", count: 2000)
        #expect(!pattern.matches(name))
        #expect(pattern.matches(name + "b"))
    }
}
