import CastKit
import NIOConcurrencyHelpers

extension SessionManager {
    /// The manager's session now, then again after every session event
    /// (`nil` once it ended or failed to start), so a model can follow
    /// whichever session is current and its state. It ends when the
    /// listening task is cancelled.
    nonisolated func sessionUpdates() -> AsyncStream<CastSession?> {
        let events = self.events()
        let (stream, continuation) = AsyncStream.makeStream(
            of: CastSession?.self, bufferingPolicy: .bufferingNewest(16))
        let task = Task {
            continuation.yield(await self.currentSession)
            for await event in events {
                switch event {
                case .failedToStart, .ended:
                    continuation.yield(nil)
                case .starting(let session), .started(let session), .suspended(let session, _),
                    .resuming(let session), .resumed(let session, _), .ending(let session):
                    continuation.yield(session)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// The task a model follows its sources in, cancelled when the model closes or goes.
final class FollowingTask: Sendable {
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Runs `body` until ``cancel()``.
    func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { await body() }
        self.task.withLockedValue { $0 = task }
    }

    func cancel() {
        self.task.withLockedValue { $0?.cancel() }
    }

    deinit {
        self.cancel()
    }
}
