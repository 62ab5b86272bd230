public import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The swift-log handler behind every logger ``CastLogger/makeLogger(subsystem:)``
/// makes: it reports the hub's current level for its subsystem as `logLevel`,
/// so swift-log skips filtered-out calls before it evaluates their message or
/// metadata, and turns admitted events into ``CastLogRecord``s.
///
/// Setting `logLevel` on such a logger can only make it quieter than the
/// hub's filter, never louder: the filter has the last word.
public struct CastLogHandler: LogHandler {
    private let logger: CastLogger
    private let gate: SubsystemGate
    private var levelOverride: Logger.Level?

    /// Metadata attached to every record from this handler.
    public var metadata: Logger.Metadata = [:]
    /// Supplies metadata (for example, from task-locals) at log time.
    public var metadataProvider: Logger.MetadataProvider?

    init(logger: CastLogger, gate: SubsystemGate) {
        self.logger = logger
        self.gate = gate
    }

    /// The subsystem records from this handler carry.
    public var subsystem: String { self.gate.subsystem }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    /// The least important swift-log level that can pass now. While the hub
    /// lets nothing through (no sink, or the subsystem at ``CastLogLevel/none``)
    /// this is `critical`, the highest swift-log has; ``log(event:)`` drops those too.
    public var logLevel: Logger.Level {
        get {
            let hubLevel = self.gate.level(in: self.logger).swiftLogLevel ?? .critical
            guard let levelOverride = self.levelOverride else { return hubLevel }
            return max(levelOverride, hubLevel)
        }
        set { self.levelOverride = newValue }
    }

    public func log(event: LogEvent) {
        let level = CastLogLevel(event.level)
        guard level >= self.gate.level(in: self.logger) else { return }
        if let levelOverride = self.levelOverride, event.level < levelOverride { return }
        var metadata = self.metadata
        if let provided = self.metadataProvider?.get() {
            metadata.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata {
            metadata.merge(explicit) { _, explicit in explicit }
        }
        self.logger.deliver(
            CastLogRecord(
                level: level,
                message: event.message.description,
                subsystem: self.gate.subsystem,
                function: event.function,
                file: event.file,
                line: event.line,
                timestamp: Date(),
                metadata: metadata,
                error: event.error
            )
        )
    }
}
