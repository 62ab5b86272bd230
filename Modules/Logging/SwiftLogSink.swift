public import Logging
import NIOConcurrencyHelpers

/// Forwards admitted records to swift-log, for apps that bootstrap
/// `LoggingSystem` with their own handlers.
///
/// Each subsystem gets a `Logger` labelled `labelPrefix + subsystem`
/// (`cast.Transport.Heartbeat` by default), made once and reused. Records
/// keep their level (``CastLogLevel/verbose`` becomes `trace`), metadata,
/// error and source location; their `source` is `Cast`. The app's handlers
/// apply their own level on top of the ``CastLogFilter``.
///
/// ```swift
/// LoggingSystem.bootstrap(StreamLogHandler.standardError)
/// CastLogger.shared.addSink(SwiftLogSink())
/// ```
///
/// Do not route swift-log back into the same ``CastLogger``: records a sink
/// logs while it handles one are dropped.
public struct SwiftLogSink: CastLogSink {
    private final class Loggers: Sendable {
        let labelPrefix: String
        let makeLogger: @Sendable (String) -> Logger
        let cache = NIOLockedValueBox<[String: Logger]>([:])

        init(labelPrefix: String, makeLogger: @escaping @Sendable (String) -> Logger) {
            self.labelPrefix = labelPrefix
            self.makeLogger = makeLogger
        }

        func logger(forSubsystem subsystem: String) -> Logger {
            self.cache.withLockedValue { cache in
                if let logger = cache[subsystem] {
                    return logger
                }
                let logger = self.makeLogger(self.labelPrefix + subsystem)
                cache[subsystem] = logger
                return logger
            }
        }
    }

    private let loggers: Loggers

    /// Creates a bridge.
    ///
    /// - Parameters:
    ///   - labelPrefix: put before each subsystem to make the swift-log label.
    ///   - makeLogger: makes the swift-log logger for a label; the default uses
    ///     the app's bootstrapped `LoggingSystem`.
    public init(
        labelPrefix: String = "cast.",
        makeLogger: @escaping @Sendable (String) -> Logger = { Logger(label: $0) }
    ) {
        self.loggers = Loggers(labelPrefix: labelPrefix, makeLogger: makeLogger)
    }

    public func log(_ record: CastLogRecord) {
        guard let level = record.level.swiftLogLevel else { return }
        self.loggers.logger(forSubsystem: record.subsystem).log(
            level: level,
            "\(record.message)",
            error: record.error,
            metadata: record.metadata,
            source: "Cast",
            file: record.file,
            function: record.function,
            line: record.line
        )
    }
}
