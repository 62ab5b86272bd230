// Allocations one thread makes, through the malloc interposer's per-
// allocation hook (package-benchmark's MallocInterposer trait): the audio
// sender does all of its per-frame work on the app's thread, so what that
// thread allocates between two frames is what a frame costs, apart from the
// control connection's heartbeats and the other threads' periodic work
// that the process-wide count includes.

import Glibc
import MallocInterposerSwift
import Synchronization

enum ThreadAllocations {
    nonisolated(unsafe) private static var counted: pthread_t = 0
    private static let count = Atomic<Int>(0)
    private static let hook: MallocInterposerSwift.AllocationHook = { _ in
        if pthread_equal(pthread_self(), ThreadAllocations.counted) != 0 {
            ThreadAllocations.count.add(1, ordering: .relaxed)
        }
    }

    /// Starts counting the calling thread's allocations (while the
    /// benchmark measures: the interposer counts only then).
    static func begin() {
        self.count.store(0, ordering: .relaxed)
        self.counted = pthread_self()
        MallocInterposerSwift.setAllocationHook(self.hook)
    }

    /// Stops counting; how many allocations the thread made since ``begin()``.
    static func end() -> Int {
        MallocInterposerSwift.setAllocationHook(nil)
        return self.count.load(ordering: .relaxed)
    }
}
