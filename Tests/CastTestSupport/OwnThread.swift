import Foundation

/// Runs `body` on a thread of its own and awaits its result without holding
/// one of the cooperative pool's threads.
///
/// For blocking work in async tests: waiting for a child process, or seconds
/// of synchronous encoding. The pool has one thread per core, two on CI, and
/// a test that blocks one holds up every other test's networking meanwhile
/// (TLS handshakes then time out). Record expectations on the result, back in
/// the test's task, not inside `body`.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
