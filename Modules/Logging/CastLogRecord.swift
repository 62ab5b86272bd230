public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One log message as the SDK emitted it, with where and when it came from.
///
/// Records reach the app's sinks (``CastLogSink``, ``CastLogger/records(bufferingPolicy:)``,
/// ``SwiftLogSink``) only after the ``CastLogFilter`` admitted them.
public struct CastLogRecord: Sendable, CustomStringConvertible {
    /// How important the record is; never ``CastLogLevel/none``.
    public var level: CastLogLevel
    /// The message text.
    public var message: String
    /// The component that logged it, dotted from general to specific, e.g. `Transport.Heartbeat`.
    public var subsystem: String
    /// The function that logged it.
    public var function: String
    /// The file that logged it, as `Module/File.swift`.
    public var file: String
    /// The line that logged it.
    public var line: UInt
    /// When the record was made (wall clock).
    public var timestamp: Date
    /// Structured values: the logger's metadata, its metadata provider's and the call's, the call's winning.
    public var metadata: Logger.Metadata
    /// The error the call attached, if any.
    public var error: (any Error)?

    /// Creates a record.
    public init(
        level: CastLogLevel,
        message: String,
        subsystem: String,
        function: String,
        file: String,
        line: UInt,
        timestamp: Date = Date(),
        metadata: Logger.Metadata = [:],
        error: (any Error)? = nil
    ) {
        self.level = level
        self.message = message
        self.subsystem = subsystem
        self.function = function
        self.file = file
        self.line = line
        self.timestamp = timestamp
        self.metadata = metadata
        self.error = error
    }

    /// One line: level, subsystem, message, sorted metadata, then the source location.
    public var description: String {
        var text = "[\(self.level)] \(self.subsystem): \(self.message)"
        for (key, value) in self.metadata.sorted(by: { $0.key < $1.key }) {
            text += " \(key)=\(value)"
        }
        if let error = self.error {
            text += " error=\(error)"
        }
        text += " (\(self.file):\(self.line) \(self.function))"
        return text
    }
}
