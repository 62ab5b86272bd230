import CPipeWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One connection to PipeWire that every speaker sink of a ``CastSpeakers``
/// is made on: one thread loop (one thread), context and core, as one
/// libpulse connection serves every null sink. Measured before it was
/// shared: four sinks took 21 threads, 3 per sink. When the connection
/// breaks (PipeWire ended), every sink made on it ends.
//
// @unchecked Sendable: `loop`, `context`, `core`, `hook` and `events` never
// change after init; every PipeWire call on them after the thread starts,
// and every read or write of `sinks` and `failure`, is made under the
// thread loop's lock (`locked`, or PipeWire's thread, which holds it around
// every callback). `deinit` runs when no sink holds it any more, so nothing
// else uses it then.
final class PipeWireConnection: @unchecked Sendable {
    private static let initialized: Bool = {
        pw_init(nil, nil)
        return true
    }()
    /// `PW_ID_CORE`: errors about the connection itself.
    private static let coreID: UInt32 = 0

    let loop: OpaquePointer
    private let context: OpaquePointer
    let core: OpaquePointer
    private let hook: UnsafeMutablePointer<spa_hook>
    private let events: UnsafeMutablePointer<pw_core_events>
    /// The sinks made on it, told when it breaks; guarded by the lock.
    private var sinks: [ObjectIdentifier: Weak] = [:]
    /// Why it broke, once it did; guarded by the lock.
    private(set) var failure: String?

    private struct Weak {
        weak var sink: PipeWireSink?
    }

    /// Connects to the PipeWire at `remote` (a socket path; `nil`: the
    /// user's, as `PIPEWIRE_REMOTE` or the runtime directory say).
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/soundServerUnavailable`` when PipeWire does not answer.
    init(remote: String?) throws(SpeakersError) {
        _ = Self.initialized
        guard let loop = pw_thread_loop_new("cast.speakers.pipewire", nil) else {
            throw SpeakersError(.soundServerUnavailable, "cannot create a PipeWire thread loop")
        }
        guard let context = pw_context_new(pw_thread_loop_get_loop(loop), nil, 0) else {
            pw_thread_loop_destroy(loop)
            throw SpeakersError(.soundServerUnavailable, "cannot create a PipeWire context")
        }
        var properties: UnsafeMutablePointer<pw_properties>?
        if let remote {
            properties = pw_properties_new_string("")
            pw_properties_set(properties, "remote.name", remote)
        }
        guard let core = pw_context_connect(context, properties, 0) else {
            let reason = String(cString: strerror(errno))
            pw_context_destroy(context)
            pw_thread_loop_destroy(loop)
            throw SpeakersError(.soundServerUnavailable, "cannot connect to PipeWire \(remote ?? ""): \(reason)")
        }
        self.loop = loop
        self.context = context
        self.core = core
        self.hook = .allocate(capacity: 1)
        self.hook.initialize(to: spa_hook())
        self.events = .allocate(capacity: 1)
        self.events.initialize(to: Self.makeCoreEvents())
        cpw_core_add_listener(core, self.hook, self.events, Unmanaged.passUnretained(self).toOpaque())
        guard pw_thread_loop_start(loop) >= 0 else {
            throw SpeakersError(.soundServerUnavailable, "cannot start the PipeWire thread")
        }
    }

    deinit {
        pw_thread_loop_lock(self.loop)
        spa_hook_remove(self.hook)
        pw_thread_loop_unlock(self.loop)
        pw_thread_loop_stop(self.loop)
        pw_core_disconnect(self.core)
        pw_context_destroy(self.context)
        pw_thread_loop_destroy(self.loop)
        self.hook.deallocate()
        self.events.deallocate()
    }

    /// Whether it broke.
    var hasFailed: Bool { self.locked { self.failure != nil } }

    /// Runs `body` under the thread loop's lock.
    func locked<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        pw_thread_loop_lock(self.loop)
        defer { pw_thread_loop_unlock(self.loop) }
        return try body()
    }

    /// Tells `sink` when the connection breaks (lock held).
    func register(_ sink: PipeWireSink) {
        self.sinks[ObjectIdentifier(sink)] = Weak(sink: sink)
    }

    /// Stops telling `sink` (lock held).
    func unregister(_ sink: PipeWireSink) {
        self.sinks[ObjectIdentifier(sink)] = nil
    }

    private func broke(_ reason: String) {
        if self.failure == nil { self.failure = reason }
        for entry in self.sinks.values { entry.sink?.connectionBroke(reason) }
        pw_thread_loop_signal(self.loop, false)
    }

    private static func makeCoreEvents() -> pw_core_events {
        var events = pw_core_events()
        events.version = UInt32(PW_VERSION_CORE_EVENTS)
        events.error = { data, id, _, result, message in
            guard id == PipeWireConnection.coreID, let data else { return }
            let reason = message.map { String(cString: $0) } ?? String(cString: strerror(-result))
            Unmanaged<PipeWireConnection>.fromOpaque(data).takeUnretainedValue().broke(reason)
        }
        return events
    }
}
