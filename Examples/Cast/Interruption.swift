import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Ctrl-C, caught: the command stops cleanly instead of dying.
//
// @unchecked Sendable: the dispatch source is set in `init` and never
// changed; it only keeps the handler alive. The flag is locked.
final class Interruption: @unchecked Sendable {
    private let flag = NIOLockedValueBox(false)
    private let source: any DispatchSourceSignal

    private init() {
        signal(SIGINT, SIG_IGN)
        self.source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    }

    /// Starts catching SIGINT; `then` runs on each (on another thread).
    static func install(then: @escaping @Sendable () -> Void = {}) -> Interruption {
        let interruption = Interruption()
        interruption.source.setEventHandler { [interruption] in
            interruption.flag.withLockedValue { $0 = true }
            Output.progress("stopping")
            then()
        }
        interruption.source.resume()
        return interruption
    }

    /// Whether Ctrl-C was pressed.
    var happened: Bool { self.flag.withLockedValue { $0 } }
}
