import CastLogging
import Logging
import Synchronization
import Testing

/// A swift-log handler standing in for whatever the app bootstrapped.
private struct CapturingHandler: LogHandler {
    let label: String
    let events: SharedEvents
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        self.events.append(label: self.label, event: event)
    }
}

private final class SharedEvents: Sendable {
    private let storage = Mutex<[(label: String, event: LogEvent)]>([])
    var all: [(label: String, event: LogEvent)] { self.storage.withLock { $0 } }
    func append(label: String, event: LogEvent) { self.storage.withLock { $0.append((label, event)) } }
}

@Suite(.timeLimit(.minutes(3))) struct SwiftLogSinkTests {
    @Test func forwardsRecordsWithLevelMetadataAndLocation() throws {
        struct Failure: Error {}
        let events = SharedEvents()
        let made = Mutex<[String]>([])
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .verbose))
        hub.addSink(
            SwiftLogSink { label in
                made.withLock { $0.append(label) }
                return Logger(label: label) { CapturingHandler(label: $0, events: events) }
            }
        )
        let heartbeat = hub.makeLogger(subsystem: "Transport.Heartbeat")
        heartbeat.trace("ping", metadata: ["seq": "1"], file: "CastTransport/H.swift", function: "f()", line: 7)
        heartbeat.error("dead", error: Failure())
        hub.makeLogger(subsystem: "Media").notice("loaded")

        let all = events.all
        #expect(all.map(\.label) == ["cast.Transport.Heartbeat", "cast.Transport.Heartbeat", "cast.Media"])
        #expect(all.map(\.event.level) == [.trace, .error, .info])
        #expect(all.map(\.event.message.description) == ["ping", "dead", "loaded"])
        let first = try #require(all.first?.event)
        #expect(first.metadata == ["seq": "1"])
        #expect(first.source == "Cast")
        #expect(first.file == "CastTransport/H.swift")
        #expect(first.function == "f()")
        #expect(first.line == 7)
        #expect(all[1].event.error is Failure)
        // One swift-log logger per subsystem, made once.
        #expect(made.withLock { $0 } == ["cast.Transport.Heartbeat", "cast.Media"])
    }

    @Test func theCastFilterStillApplies() {
        let events = SharedEvents()
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .warning))
        hub.addSink(
            SwiftLogSink(labelPrefix: "") { label in
                Logger(label: label) { CapturingHandler(label: $0, events: events) }
            }
        )
        let logger = hub.makeLogger(subsystem: "Kit")
        logger.info("hidden")
        logger.warning("shown")
        #expect(events.all.map(\.label) == ["Kit"])
        #expect(events.all.map(\.event.message.description) == ["shown"])
    }
}
