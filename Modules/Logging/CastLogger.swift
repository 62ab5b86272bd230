public import Logging
import NIOConcurrencyHelpers
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The SDK's logging hub, after the iOS SDK's `GCKLogger`: every module logs
/// through it, the ``filter`` decides what passes, and the app's sinks
/// receive what does.
///
/// Nothing is emitted until the app installs a sink — the SDK's rule — so a
/// library that embeds a Cast module stays silent unless its app asks.
///
/// ```swift
/// CastLogger.shared.filter = CastLogFilter(minimumLevel: .debug)
/// CastLogger.shared.addSink(ClosureLogSink { record in print(record) })
/// ```
///
/// Modules log through swift-log `Logger`s made by ``makeLogger(subsystem:)``;
/// their handler asks this hub, so a filtered-out call builds no string. An
/// app that already bootstraps swift-log adds a ``SwiftLogSink`` and receives
/// everything there; this type never calls `LoggingSystem.bootstrap`.
///
/// All members are safe to use from any thread or task. ``shared`` is the
/// instance the SDK uses unless given another one (tests use their own).
public final class CastLogger: Sendable {
    /// The instance every Cast module logs through by default.
    public static let shared = CastLogger()

    private struct State {
        var filter: CastLogFilter
        var sinks: [(token: CastLogSinkToken, sink: any CastLogSink)] = []
        var nextToken: UInt64 = 0
    }

    private let state: NIOLockedValueBox<State>
    /// Bumped (under the state lock) whenever the filter or the sinks change.
    let generation = Atomic<Int>(0)
    // A plain lock: a `NIOLockedValueBox<Void>`'s zero-sized value shares its
    // address with the lock, and TSan reported that as an access race.
    /// Serialises delivery so sinks see one record at a time, in one order.
    private let delivery = NIOLock()
    /// The thread currently delivering, or 0; lets a sink's own log calls be dropped instead of deadlocking.
    private let deliveringThread = Atomic<UInt>(0)

    /// Creates a logger with its own filter and sinks.
    public init(filter: CastLogFilter = CastLogFilter()) {
        self.state = NIOLockedValueBox(State(filter: filter))
    }

    /// What passes. Changing it takes effect for the very next log call, in
    /// every logger made before or after.
    public var filter: CastLogFilter {
        get { self.state.withLockedValue { $0.filter } }
        set {
            self.state.withLockedValue { state in
                state.filter = newValue
                self.generation.add(1, ordering: .releasing)
            }
        }
    }

    /// Installs a sink; it receives every record admitted from now on.
    @discardableResult
    public func addSink(_ sink: some CastLogSink) -> CastLogSinkToken {
        self.state.withLockedValue { state in
            let token = CastLogSinkToken(id: state.nextToken)
            state.nextToken += 1
            state.sinks.append((token, sink))
            self.generation.add(1, ordering: .releasing)
            return token
        }
    }

    /// Removes a sink; unknown or already removed tokens are ignored.
    public func removeSink(_ token: CastLogSinkToken) {
        self.state.withLockedValue { state in
            state.sinks.removeAll { $0.token == token }
            self.generation.add(1, ordering: .releasing)
        }
    }

    /// A swift-log `Logger` whose records go through this hub as `subsystem`.
    ///
    /// - Parameter subsystem: the component, dotted from general to specific
    ///   (`Transport.Heartbeat`); also the logger's label.
    public func makeLogger(subsystem: String) -> Logger {
        Logger(label: subsystem) { label in
            CastLogHandler(logger: self, gate: SubsystemGate(subsystem: label))
        }
    }

    /// The level in force for `subsystem` and the generation it belongs to.
    func effectiveLevel(forSubsystem subsystem: String) -> (generation: Int, level: CastLogLevel) {
        self.state.withLockedValue { state in
            let generation = self.generation.load(ordering: .relaxed)
            if state.sinks.isEmpty {
                return (generation, .none)
            }
            return (generation, state.filter.level(forSubsystem: subsystem))
        }
    }

    /// Hands an admitted record to every sink, one record at a time.
    func deliver(_ record: CastLogRecord) {
        let thread = currentThreadID()
        if self.deliveringThread.load(ordering: .acquiring) == thread {
            return  // A sink logged while handling a record: drop it rather than deadlock.
        }
        self.delivery.withLock {
            self.deliveringThread.store(thread, ordering: .releasing)
            defer { self.deliveringThread.store(0, ordering: .releasing) }
            let sinks = self.state.withLockedValue { $0.sinks }
            for entry in sinks {
                entry.sink.log(record)
            }
        }
    }
}

/// A number unique to the calling thread while it runs, never 0.
private func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
