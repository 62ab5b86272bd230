import NIOConcurrencyHelpers

/// The requests a channel has in flight, by `requestId`
/// (Docs/spec/castv2-control.md §5): each waits for its reply, its timeout
/// or its task's cancellation, whichever comes first, and all fail at once
/// when the channel disconnects.
///
/// A channel's receive hook decodes a message, applies it to its state, and
/// only then calls ``resolve(requestID:with:)``: a reply that is also a
/// status update has updated the channel by the time the caller sees it.
public final class RequestTracker<Reply: Sendable>: Sendable {
    private enum Slot {
        case waiting(CheckedContinuation<Result<Reply, CastChannelError>, Never>?, timeout: Task<Void, Never>?)
        case done(Result<Reply, CastChannelError>)
    }

    private let slots = NIOLockedValueBox<[Int: Slot]>([:])
    private let clock: any Clock<Duration>

    /// Creates an empty tracker whose timeouts run on `clock` (tests pass
    /// a clock they advance themselves).
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
    }

    /// How many requests are waiting.
    public var pendingCount: Int {
        self.slots.withLockedValue { slots in
            slots.values.count { if case .waiting = $0 { true } else { false } }
        }
    }

    /// Registers `requestID`, runs `send`, and waits for the outcome.
    ///
    /// - Throws: what `send` throws; ``CastChannelError/Code/timedOut``
    ///   after `timeout`; ``CastChannelError/Code/cancelled`` if the task is
    ///   cancelled; or the error the request was resolved with.
    public func perform(
        requestID: Int,
        timeout: Duration,
        send: () async throws(CastChannelError) -> Void
    ) async throws(CastChannelError) -> Reply {
        // The slot first, then its timer: a timer that fires at once (a test's
        // clock advanced as soon as it sleeps) must find the request waiting.
        self.slots.withLockedValue { $0[requestID] = .waiting(nil, timeout: nil) }
        let clock = self.clock
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(for: timeout)) != nil else { return }
            self?.resolve(
                requestID: requestID,
                with: .failure(CastChannelError(.timedOut, "no reply to request \(requestID) within \(timeout)")))
        }
        let armed = self.slots.withLockedValue { slots in
            guard case .waiting(let continuation, nil) = slots[requestID] else { return false }
            slots[requestID] = .waiting(continuation, timeout: timer)
            return true
        }
        if !armed { timer.cancel() }
        do {
            try await send()
        } catch {
            self.slots.withLockedValue { _ = $0.removeValue(forKey: requestID) }
            timer.cancel()
            throw error
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Result<Reply, CastChannelError>? = self.slots.withLockedValue { slots in
                    switch slots[requestID] {
                    case .done(let result):
                        slots[requestID] = nil
                        return result
                    case .waiting(_, let timeout):
                        slots[requestID] = .waiting(continuation, timeout: timeout)
                        return nil
                    case nil:
                        return .failure(CastChannelError(.cancelled, "request \(requestID) was abandoned"))
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            self.resolve(
                requestID: requestID, with: .failure(CastChannelError(.cancelled, "request \(requestID) was cancelled"))
            )
        }
        return try result.get()
    }

    /// Ends the request `requestID` with `result`. Returns whether such a
    /// request was pending (replies to unknown ids are not errors: another
    /// channel on the socket may own them, or they came too late).
    @discardableResult
    public func resolve(requestID: Int, with result: Result<Reply, CastChannelError>) -> Bool {
        let continuation: CheckedContinuation<Result<Reply, CastChannelError>, Never>?
        let timer: Task<Void, Never>?
        let pending: Bool
        (continuation, timer, pending) = self.slots.withLockedValue { slots in
            guard case .waiting(let continuation, let timeout) = slots[requestID] else { return (nil, nil, false) }
            if continuation == nil {
                slots[requestID] = .done(result)
            } else {
                slots[requestID] = nil
            }
            return (continuation, timeout, true)
        }
        guard pending else { return false }
        timer?.cancel()
        continuation?.resume(returning: result)
        return true
    }

    /// Ends every pending request with `error`: the connection is gone.
    public func failAll(_ error: CastChannelError) {
        let pending = self.slots.withLockedValue { slots in slots.keys.sorted() }
        for requestID in pending {
            self.resolve(requestID: requestID, with: .failure(error))
        }
    }
}
