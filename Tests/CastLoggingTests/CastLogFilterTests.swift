import CastLogging
import Testing

@Suite(.timeLimit(.minutes(3))) struct CastLogFilterTests {
    @Test func defaultAdmitsInfoAndAbove() {
        let filter = CastLogFilter()
        #expect(filter.minimumLevel == .info)
        #expect(!filter.admits(.verbose, fromSubsystem: "Transport"))
        #expect(!filter.admits(.debug, fromSubsystem: "Transport"))
        #expect(filter.admits(.info, fromSubsystem: "Transport"))
        #expect(filter.admits(.warning, fromSubsystem: "Transport"))
        #expect(filter.admits(.error, fromSubsystem: "Transport"))
    }

    @Test func noneIsNeverAdmittedAndSilencesEverything() {
        #expect(!CastLogFilter(minimumLevel: .verbose).admits(.none, fromSubsystem: "A"))
        let silent = CastLogFilter(minimumLevel: .none)
        for level in CastLogLevel.allCases {
            #expect(!silent.admits(level, fromSubsystem: "A"))
        }
    }

    @Test func globRuleOverridesMinimumInBothDirections() {
        var filter = CastLogFilter(minimumLevel: .warning)
        filter.setLevel(.verbose, forSubsystems: ["Transport.*"])
        filter.setLevel(.none, forSubsystems: ["Discovery"])
        #expect(filter.admits(.verbose, fromSubsystem: "Transport.Heartbeat"))
        #expect(!filter.admits(.info, fromSubsystem: "Media"))
        #expect(filter.admits(.warning, fromSubsystem: "Media"))
        #expect(!filter.admits(.error, fromSubsystem: "Discovery"))
        #expect(filter.admits(.error, fromSubsystem: "Discovery.Cache"))
    }

    @Test func literalBeatsGlobAndSpecificGlobBeatsGeneral() {
        var filter = CastLogFilter(minimumLevel: .info)
        filter.setLevel(.error, forSubsystems: ["Transport.Heartbeat"])
        filter.setLevel(.verbose, forSubsystems: ["Transport.*"])
        filter.setLevel(.warning, forSubsystems: ["*"])
        filter.setLevel(.debug, forSubsystems: ["Transport.Heart*"])
        #expect(filter.level(forSubsystem: "Transport.Heartbeat") == .error)
        #expect(filter.level(forSubsystem: "Transport.HeartRate") == .debug)
        #expect(filter.level(forSubsystem: "Transport.Framer") == .verbose)
        #expect(filter.level(forSubsystem: "Media") == .warning)
    }

    @Test func laterRuleWinsATieAndSettingAgainReplaces() {
        var filter = CastLogFilter()
        filter.setLevel(.debug, forSubsystems: ["*Session"])
        filter.setLevel(.error, forSubsystems: ["CastSes*"])  // as specific as "*Session"
        #expect(filter.level(forSubsystem: "CastSession") == .error)
        filter.setLevel(.verbose, forSubsystems: ["*Session"])
        #expect(filter.rules.count == 2)
        #expect(filter.level(forSubsystem: "CastSession") == .verbose)
        #expect(filter.level(forSubsystem: "RemoteDisplaySession") == .verbose)
    }

    @Test func removingARuleFallsBackToTheMinimum() {
        var filter = CastLogFilter(minimumLevel: .warning)
        filter.setLevel(.verbose, forSubsystems: ["Transport.*", "Media"])
        filter.removeLevel(forSubsystems: ["Transport.*"])
        #expect(filter.level(forSubsystem: "Transport.Framer") == .warning)
        #expect(filter.level(forSubsystem: "Media") == .verbose)
    }

    @Test func swiftLogLevelsMapBothWays() {
        for level in CastLogLevel.allCases where level != .none {
            #expect(level.swiftLogLevel.map(CastLogLevel.init) == level)
        }
        #expect(CastLogLevel.none.swiftLogLevel == nil)
        #expect(CastLogLevel(.notice) == .info)
        #expect(CastLogLevel(.critical) == .error)
    }
}
