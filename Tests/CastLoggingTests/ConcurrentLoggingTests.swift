import CastLogging
import Logging
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(3))) struct ConcurrentLoggingTests {
    /// Many tasks log at once while the filter changes under them: every
    /// admitted record arrives exactly once, intact, and each task's records
    /// arrive in the order it logged them.
    @Test func manyConcurrentLoggersLoseAndInterleaveNothing() async {
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .info))
        let sink = RecordCollector()
        let stream = hub.records()
        hub.addSink(sink)
        let tasks = 8
        let perTask = 2_000

        await withTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    let logger = hub.makeLogger(subsystem: "Worker.\(task)")
                    for index in 0..<perTask {
                        logger.info("\(task):\(index)", metadata: ["task": "\(task)", "index": "\(index)"])
                        logger.trace("never admitted")
                    }
                }
            }
            group.addTask {
                for round in 0..<200 {
                    var filter = CastLogFilter(minimumLevel: .info)
                    filter.setLevel(round.isMultiple(of: 2) ? .debug : .info, forSubsystems: ["Worker.*"])
                    hub.filter = filter
                    await Task.yield()
                }
            }
        }

        let records = sink.records
        #expect(records.count == tasks * perTask)
        for task in 0..<tasks {
            let mine = records.filter { $0.subsystem == "Worker.\(task)" }
            #expect(mine.map(\.message) == (0..<perTask).map { "\(task):\($0)" })
            #expect(
                mine.allSatisfy {
                    $0.metadata["task"] == "\(task)" && $0.message.hasSuffix(":\($0.metadata["index"] ?? "-")")
                })
        }

        // The asynchronous subscriber saw the very same sequence.
        var streamed: [String] = []
        for await record in stream {
            streamed.append(record.message)
            if streamed.count == records.count { break }
        }
        #expect(streamed == records.map(\.message))
    }
}
