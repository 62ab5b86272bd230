public import Logging

/// How important a log record is, from the most talkative to silence.
///
/// The levels are those of the iOS sender SDK's `GCKLoggerLevel`. They order
/// by severity, so a filter that admits ``info`` also admits ``warning`` and
/// ``error``. ``none`` is never attached to a record: it is the filter level
/// that silences a subsystem.
public enum CastLogLevel: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Per-packet and per-frame detail; very high volume.
    case verbose = 0
    /// Diagnostic detail useful while developing.
    case debug = 1
    /// Normal, noteworthy events: a device found, a session started.
    case info = 2
    /// Something went wrong but the SDK recovered or will retry.
    case warning = 3
    /// Something failed and the caller will see an error.
    case error = 4
    /// A filter level only: nothing passes.
    case none = 5

    public static func < (lhs: CastLogLevel, rhs: CastLogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String {
        switch self {
        case .verbose: "verbose"
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        case .none: "none"
        }
    }
}

extension CastLogLevel {
    /// The level a swift-log level maps to: `trace` is ``verbose``, `notice`
    /// folds into ``info`` and `critical` into ``error``.
    public init(_ level: Logger.Level) {
        switch level {
        case .trace: self = .verbose
        case .debug: self = .debug
        case .info, .notice: self = .info
        case .warning: self = .warning
        case .error, .critical: self = .error
        }
    }

    /// The swift-log level that admits exactly the records this level admits,
    /// or `nil` for ``none``, which swift-log cannot express.
    public var swiftLogLevel: Logger.Level? {
        switch self {
        case .verbose: .trace
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        case .none: nil
        }
    }
}
