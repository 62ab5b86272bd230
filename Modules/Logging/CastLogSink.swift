/// Where admitted log records go: the app's side of the SDK's `GCKLoggerDelegate`.
///
/// Install a sink with ``CastLogger/addSink(_:)``. The logger calls every
/// sink for every admitted record, one record at a time and in the same
/// order for all sinks, from whichever thread logged it; a sink is never
/// called concurrently with itself or another sink of the same logger, so
/// it can write to a file or the console without its own locking.
///
/// A sink must not block for long, since the thread that logged waits for
/// it. Records a sink itself logs through the same ``CastLogger`` while
/// handling one are dropped, so a sink can never deadlock or recurse.
public protocol CastLogSink: Sendable {
    /// Receives one admitted record.
    func log(_ record: CastLogRecord)
}

/// A sink that calls a closure: the quickest way to see the SDK's logs.
///
/// ```swift
/// CastLogger.shared.addSink(ClosureLogSink { print($0) })
/// ```
public struct ClosureLogSink: CastLogSink {
    private let body: @Sendable (CastLogRecord) -> Void

    /// Creates a sink that calls `body` with each record.
    public init(_ body: @escaping @Sendable (CastLogRecord) -> Void) {
        self.body = body
    }

    public func log(_ record: CastLogRecord) {
        self.body(record)
    }
}

/// Identifies an installed sink so it can be removed.
public struct CastLogSinkToken: Sendable, Hashable {
    let id: UInt64
}
