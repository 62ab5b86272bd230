import CastLogging
import Logging
import Testing

@Suite(.timeLimit(.minutes(3))) struct CastLoggerTests {
    @Test func nothingIsEmittedOrBuiltUntilASinkIsInstalled() {
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .verbose))
        let logger = hub.makeLogger(subsystem: "Transport")
        let counter = EvaluationCounter()
        logger.error("\(counter.message("lost"))")
        #expect(counter.value == 0)

        let sink = RecordCollector()
        hub.addSink(sink)
        logger.error("\(counter.message("seen"))")
        #expect(counter.value == 1)
        #expect(sink.messages == ["seen"])
    }

    @Test func recordCarriesEverything() throws {
        struct Failure: Error {}
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .verbose))
        let sink = RecordCollector()
        hub.addSink(sink)
        var logger = hub.makeLogger(subsystem: "Transport.Heartbeat")
        logger[metadataKey: "peer"] = "10.0.0.2"
        logger[metadataKey: "overridden"] = "handler"
        logger.warning(
            "no PONG",
            error: Failure(),
            metadata: ["silence.ms": "5000", "overridden": "call"],
            file: "CastTransport/Heartbeat.swift",
            function: "tick()",
            line: 42
        )
        let record = try #require(sink.records.first)
        #expect(record.level == .warning)
        #expect(record.message == "no PONG")
        #expect(record.subsystem == "Transport.Heartbeat")
        #expect(record.file == "CastTransport/Heartbeat.swift")
        #expect(record.function == "tick()")
        #expect(record.line == 42)
        #expect(record.metadata == ["peer": "10.0.0.2", "silence.ms": "5000", "overridden": "call"])
        #expect(record.error is Failure)
        #expect(abs(record.timestamp.timeIntervalSinceNow) < 60)
        #expect(
            record.description
                == "[warning] Transport.Heartbeat: no PONG overridden=call peer=10.0.0.2 silence.ms=5000"
                + " error=Failure() (CastTransport/Heartbeat.swift:42 tick())"
        )
    }

    @Test func metadataProviderIsMergedUnderCallMetadata() throws {
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .verbose))
        let sink = RecordCollector()
        hub.addSink(sink)
        var logger = hub.makeLogger(subsystem: "Media")
        logger.handler.metadataProvider = Logger.MetadataProvider { ["request": "7", "who": "provider"] }
        logger.info("load", metadata: ["who": "call"])
        #expect(try #require(sink.records.first).metadata == ["request": "7", "who": "call"])
    }

    @Test func filteredOutCallsBuildNoMessageAndNoMetadata() {
        var filter = CastLogFilter(minimumLevel: .warning)
        filter.setLevel(.verbose, forSubsystems: ["Transport.*"])
        let hub = CastLogger(filter: filter)
        let sink = RecordCollector()
        hub.addSink(sink)
        let counter = EvaluationCounter()
        let media = hub.makeLogger(subsystem: "Media")
        let framer = hub.makeLogger(subsystem: "Transport.Framer")

        media.debug("\(counter.message("media debug"))", metadata: ["k": "\(counter.message("m"))"])
        media.info("\(counter.message("media info"))")
        #expect(counter.value == 0)

        framer.trace("\(counter.message("framer trace"))")
        media.error("\(counter.message("media error"))")
        #expect(counter.value == 2)
        #expect(sink.messages == ["framer trace", "media error"])
        #expect(sink.records.map(\.level) == [.verbose, .error])
    }

    @Test func filterChangesApplyToExistingLoggersImmediately() {
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .error))
        let sink = RecordCollector()
        hub.addSink(sink)
        let logger = hub.makeLogger(subsystem: "Discovery.Cache")
        logger.info("1 hidden")

        var louder = hub.filter
        louder.setLevel(.debug, forSubsystems: ["Discovery.*"])
        hub.filter = louder
        logger.info("2 shown")
        logger.trace("3 hidden")

        hub.filter = CastLogFilter(minimumLevel: .none)
        logger.error("4 hidden")
        hub.filter = CastLogFilter(minimumLevel: .verbose)
        logger.trace("5 shown")
        #expect(sink.messages == ["2 shown", "5 shown"])
    }

    @Test func loggerLevelCanOnlyMakeItQuieter() {
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .info))
        let sink = RecordCollector()
        hub.addSink(sink)
        var logger = hub.makeLogger(subsystem: "Media")
        logger.logLevel = .trace
        #expect(logger.logLevel == .info)
        logger.debug("hidden by the filter")
        logger.logLevel = .error
        #expect(logger.logLevel == .error)
        logger.warning("hidden by the logger")
        logger.error("shown")
        #expect(sink.messages == ["shown"])
    }

    @Test func closureSinkAndRemoval() {
        let hub = CastLogger()
        let collector = RecordCollector()
        let token = hub.addSink(ClosureLogSink { collector.log($0) })
        let logger = hub.makeLogger(subsystem: "Kit")
        logger.info("a")
        hub.removeSink(token)
        hub.removeSink(token)
        logger.info("b")
        #expect(collector.messages == ["a"])
    }

    @Test func everySinkSeesEveryRecordInTheSameOrder() {
        let hub = CastLogger()
        let first = RecordCollector()
        let second = RecordCollector()
        hub.addSink(first)
        hub.addSink(second)
        let logger = hub.makeLogger(subsystem: "Kit")
        for index in 0..<50 {
            logger.info("\(index)")
        }
        #expect(first.messages == (0..<50).map(String.init))
        #expect(second.messages == first.messages)
    }

    /// A sink that logs through the same hub must neither deadlock nor recurse.
    @Test func recordsLoggedFromInsideASinkAreDropped() {
        let hub = CastLogger()
        let inner = hub.makeLogger(subsystem: "Sink")
        let collector = RecordCollector()
        hub.addSink(
            ClosureLogSink { record in
                collector.log(record)
                inner.error("echo of \(record.message)")
            }
        )
        hub.makeLogger(subsystem: "Kit").info("original")
        #expect(collector.messages == ["original"])
    }

    /// A sink may add or remove sinks while it handles a record.
    @Test func aSinkCanChangeTheSinks() {
        let hub = CastLogger()
        let late = RecordCollector()
        hub.addSink(ClosureLogSink { _ in hub.addSink(late) })
        let logger = hub.makeLogger(subsystem: "Kit")
        logger.info("one")
        logger.info("two")
        #expect(late.messages == ["two"])
    }
}
