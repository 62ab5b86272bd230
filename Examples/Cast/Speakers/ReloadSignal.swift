import Dispatch
import Foundation

/// SIGHUP, caught: `cast speakers` reads its settings file again, as
/// `systemctl --user reload` asks (the unit's `ExecReload`). Signals that
/// come while one is handled count as one.
//
// @unchecked Sendable: the dispatch source is set in `init` and only
// cancelled in `deinit`; the stream's continuation is Sendable.
final class ReloadSignal: @unchecked Sendable {
    /// One element per SIGHUP not yet handled (at most one waits).
    let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let source: any DispatchSourceSignal

    init() {
        signal(SIGHUP, SIG_IGN)
        (self.signals, self.continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        self.source.setEventHandler { [continuation = self.continuation] in continuation.yield() }
        self.source.resume()
    }

    deinit {
        self.source.cancel()
        self.continuation.finish()
    }
}
