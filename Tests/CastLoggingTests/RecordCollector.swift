import CastLogging
import Synchronization

/// A sink that keeps every record it receives, for assertions.
final class RecordCollector: CastLogSink {
    private let storage = Mutex<[CastLogRecord]>([])

    var records: [CastLogRecord] { self.storage.withLock { $0 } }
    var messages: [String] { self.records.map(\.message) }

    func log(_ record: CastLogRecord) {
        self.storage.withLock { $0.append(record) }
    }
}

/// Counts how often a message or metadata autoclosure was evaluated.
final class EvaluationCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { self.count.load(ordering: .relaxed) }

    func message(_ text: String) -> String {
        self.count.add(1, ordering: .relaxed)
        return text
    }
}
