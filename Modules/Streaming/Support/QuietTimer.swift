import CTimerFD
import Glibc

/// A one-shot timer one thread re-arms while it is busy and another sleeps
/// on until it runs out: the audio-only pipeline's hand-over between the
/// app's thread, which sends while audio comes, and the network thread,
/// which takes over once it stops (``MediaPipeline``).
///
/// A `timerfd`: re-arming is one system call that wakes nobody, so the
/// sleeping thread wakes once when the app goes quiet, not at every frame
/// or on a poll interval.
final class QuietTimer: Sendable {
    private let descriptor: Int32

    /// Makes a disarmed timer on the monotonic clock.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/networkFailure``
    ///   when the system has no descriptor to spare.
    init() throws(CastRemoteDisplayError) {
        let descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard descriptor >= 0 else {
            throw CastRemoteDisplayError(.networkFailure, "cannot make a timer (errno \(errno))")
        }
        self.descriptor = descriptor
    }

    /// Runs out `interval` from now (re-arming forgets an earlier run-out);
    /// a zero interval runs out at once.
    func arm(after interval: Duration) {
        let nanoseconds = max(interval.inNanoseconds, 1)
        var setting = itimerspec(
            it_interval: timespec(tv_sec: 0, tv_nsec: 0),
            it_value: timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000)))
        _ = timerfd_settime(self.descriptor, 0, &setting, nil)
    }

    /// Whether the timer is armed and has not run out yet.
    var isArmed: Bool {
        var setting = itimerspec()
        guard timerfd_gettime(self.descriptor, &setting) == 0 else { return false }
        return setting.it_value.tv_sec != 0 || setting.it_value.tv_nsec != 0
    }

    /// Sleeps until the timer runs out, re-armings included; returns at once
    /// when it is not armed.
    func waitUntilQuiet() {
        guard self.isArmed else { return }
        var request = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&request, 1, -1) < 0, errno == EINTR {}
        // Consumes the run-out, so the next wait sleeps again (non-blocking:
        // a re-arming in between left nothing to read).
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { read(self.descriptor, $0.baseAddress, $0.count) }
    }

    /// Closes the timer, once no thread waits on it or arms it any more.
    func close() {
        _ = Glibc.close(self.descriptor)
    }
}
