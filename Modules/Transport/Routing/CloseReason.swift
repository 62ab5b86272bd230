import NIOConcurrencyHelpers

/// The first reason a connection ended, shared between the pipeline (which
/// sees errors and the socket closing) and the connection actor (which sees
/// the app closing). The first reason recorded wins.
final class CloseReason: Sendable {
    private let reason = NIOLockedValueBox<CastTransportError?>(nil)

    /// Records `error` unless a reason is already recorded.
    func record(_ error: CastTransportError) {
        self.reason.withLockedValue { reason in
            if reason == nil { reason = error }
        }
    }

    /// The recorded reason, if any: once set, the connection is ending.
    var recorded: CastTransportError? {
        self.reason.withLockedValue { $0 }
    }

    /// The recorded reason, or `fallback` when there is none.
    func value(or fallback: @autoclosure () -> CastTransportError) -> CastTransportError {
        self.reason.withLockedValue { $0 } ?? fallback()
    }
}
