import Foundation
import Testing

@testable import CastSpeakers

/// Who made a sink, as written into its `cast.owner` property and read
/// back from the module argument the sound server lists.
@Suite(.timeLimit(.minutes(1))) struct SinkOwnerTests {
    @Test func thisProcessIsRunningAndAnotherStartTimeIsNot() throws {
        let current = try #require(SinkOwner.current)
        #expect(current.pid == getpid())
        #expect(current.isRunning)
        #expect(!SinkOwner(pid: current.pid, startTime: current.startTime + 1).isRunning)
        // No process has id 0 in /proc; an id beyond pid_max has none either.
        #expect(!SinkOwner(pid: 0, startTime: current.startTime).isRunning)
        #expect(!SinkOwner(pid: Int32.max, startTime: current.startTime).isRunning)
    }

    @Test func theStartTimeIsField22WhateverTheCommandHolds() {
        let fields = (3...52).map { $0 == 22 ? "98765" : "\($0)" }.joined(separator: " ")
        #expect(SinkOwner.startTime(fromStat: "4242 (cast) \(fields)") == 98_765)
        #expect(SinkOwner.startTime(fromStat: "4242 (a) b (c)) \(fields)") == 98_765)
        #expect(SinkOwner.startTime(fromStat: "4242 (cast) S 1 2") == nil)
        #expect(SinkOwner.startTime(fromStat: "no parenthesis") == nil)
        #expect(SinkOwner.startTime(fromStat: "") == nil)
    }

    @Test func theOwnerIsReadFromTheModuleArgumentOrNotAtAll() {
        let argument =
            "sink_name=cast.kitchen format=float32le rate=48000 channels=2 "
            + "sink_properties=\"device.description='Kitchen' cast.owner='1234:5678'\""
        #expect(SinkOwner(moduleArgument: argument) == SinkOwner(pid: 1_234, startTime: 5_678))
        #expect("\(SinkOwner(pid: 7, startTime: 8))" == "7:8")
        #expect(SinkOwner(moduleArgument: "cast.owner='7:8'") == SinkOwner(pid: 7, startTime: 8))
        for broken in [
            "sink_name=cast.kitchen", "cast.owner='1234'", "cast.owner='1234:'", "cast.owner='-1:5'",
            "cast.owner='0:5'", "cast.owner='1:2:3'", "cast.owner='a:b'", "cast.owner='1234:5678", "cast.owner=",
            "cast.owner='99999999999:1'",
        ] {
            #expect(SinkOwner(moduleArgument: broken) == nil, "\(broken)")
        }
    }
}
