// The cost of logging through CastLogging, as ratios to swift-log's own
// no-op handler measured in the same run:
//
// - `filtered out`: a call the filter rejects must cost about what a call
//   to a disabled swift-log logger costs — no message or metadata built.
// - `no sink installed`: the SDK's default (silent) state, even at the
//   most talkative filter level, must cost the same as `filtered out`.
// - `admitted`: a call that builds a record and hands it to a sink.

import Benchmark
import CastLogging
import Logging

/// A sink that keeps nothing, so the benchmark measures the hub, not the sink.
struct DiscardingSink: CastLogSink {
    func log(_ record: CastLogRecord) {
        blackHole(record)
    }
}

let iterations = 10_000

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .instructions],
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )

    Benchmark("baseline: swift-log no-op handler, message not built") { benchmark in
        let logger = Logger(label: "Transport.Framer") { _ in SwiftLogNoOpLogHandler() }
        for index in benchmark.scaledIterations {
            logger.trace("frame \(index) of \(iterations)", metadata: ["size": "\(index)"])
        }
    }

    Benchmark("CastLogging: filtered out, sink installed") { benchmark in
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .warning))
        hub.addSink(DiscardingSink())
        let logger = hub.makeLogger(subsystem: "Transport.Framer")
        for index in benchmark.scaledIterations {
            logger.trace("frame \(index) of \(iterations)", metadata: ["size": "\(index)"])
        }
    }

    Benchmark("CastLogging: no sink installed") { benchmark in
        let logger = CastLogger(filter: CastLogFilter(minimumLevel: .verbose)).makeLogger(subsystem: "Transport")
        for index in benchmark.scaledIterations {
            logger.error("frame \(index) of \(iterations)", metadata: ["size": "\(index)"])
        }
    }

    Benchmark("CastLogging: admitted to one sink") { benchmark in
        var filter = CastLogFilter(minimumLevel: .warning)
        filter.setLevel(.verbose, forSubsystems: ["Transport.*", "*Session"])
        let hub = CastLogger(filter: filter)
        hub.addSink(DiscardingSink())
        let logger = hub.makeLogger(subsystem: "Transport.Framer")
        for index in benchmark.scaledIterations {
            logger.trace("frame \(index) of \(iterations)", metadata: ["size": "\(index)"])
        }
    }
}
