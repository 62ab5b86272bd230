import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Ctrl-C, caught: the command stops cleanly instead of dying.
//
// @unchecked Sendable: the dispatch sources are set in `init` and never
// changed; they only keep the handler alive. The flag is locked.
final class Interruption: @unchecked Sendable {
    private let flag = NIOLockedValueBox(false)
    private let sources: [any DispatchSourceSignal]

    private init(signals: [Int32]) {
        for number in signals { signal(number, SIG_IGN) }
        self.sources = signals.map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
    }

    /// Starts catching SIGINT — and SIGTERM with `alsoOnTerminate`, as a
    /// service that systemd stops — `then` runs on each (on another thread).
    static func install(alsoOnTerminate: Bool = false, then: @escaping @Sendable () -> Void = {}) -> Interruption {
        let interruption = Interruption(signals: alsoOnTerminate ? [SIGINT, SIGTERM] : [SIGINT])
        for source in interruption.sources {
            source.setEventHandler { [interruption] in
                interruption.flag.withLockedValue { $0 = true }
                Output.progress("stopping")
                then()
            }
            source.resume()
        }
        return interruption
    }

    /// Whether Ctrl-C was pressed.
    var happened: Bool { self.flag.withLockedValue { $0 } }
}
