import CPipeWire
import CastSoundCapture
import CastStreaming
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A speaker's sink as a node of PipeWire's own (a `pw_stream` of media
/// class `Audio/Sink`), where the sound server is PipeWire: applications
/// play into it as into any output, pipewire-pulse shows it as a sink, and
/// it tells the graph its latency — how long after it takes a sample the
/// device plays it — so players keep their pictures in step with the sound.
///
/// A null sink (what PulseAudio offers) reports no latency, and pipewire-pulse
/// reports 0 for every sink (0.3.65, `fill_sink_info`); a player compensates
/// only by its stream's delay, which PipeWire makes of the `Latency` params
/// of the nodes downstream (`pw_stream_get_time_n`; pipewire-pulse hands it
/// to `pa_stream_get_latency`). PipeWire's AirPlay sink, module-raop-sink,
/// reports an AirPlay receiver's latency the same way.
///
/// The node takes 48 kHz stereo float (its adapter converts what each
/// application plays, and applies the sink's volume as a null sink's monitor
/// does). What arrives while a ``tap()`` reads is kept in a ring for it;
/// otherwise it is dropped. The node lives until ``close()`` or until the
/// connection to PipeWire breaks; PipeWire removes it when this process ends.
//
// @unchecked Sendable: `name`, `connection`, `hook` and `streamEvents`
// never change after init. `stream` and `state` are read and written only
// under the connection's thread-loop lock (init, `setLatency`, `close`
// take it; PipeWire's thread holds it around every callback). `ring`,
// `tapID`, `nextTapID` and `failure` are read and written only under
// `condition`. Locks are taken in one order, the loop's then
// `condition` (the callbacks, `close`, `waitUntilMade`); the tap's side
// takes `condition` alone, so no two threads can wait on each other.
final class PipeWireSink: @unchecked Sendable {
    static let sampleRate = 48_000
    static let channelCount = 2
    /// The sink's name (`node.name`), what pipewire-pulse calls it.
    let name: String
    private let connection: PipeWireConnection
    private var loop: OpaquePointer { self.connection.loop }
    private var stream: OpaquePointer?
    private let hook: UnsafeMutablePointer<spa_hook>
    private let streamEvents: UnsafeMutablePointer<pw_stream_events>
    /// Guarded by the thread loop's lock.
    private var state = pw_stream_state(PW_STREAM_STATE_CONNECTING.rawValue)

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ring = SoundRing(
        seconds: 2, channelCount: PipeWireSink.channelCount, sampleRate: PipeWireSink.sampleRate)
    private var tapID: UInt64?
    private var nextTapID: UInt64 = 0
    private var failure: CaptureError?

    /// Makes the node `name`, described as `description`, on `connection`,
    /// reporting `latency`; waits up to `timeout` for PipeWire to have made it.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/soundServerUnavailable``
    ///   when PipeWire does not answer; ``SpeakersError/Code-swift.enum/requestRefused``
    ///   when it refuses the node.
    init(
        on connection: PipeWireConnection, name: String, description: String, latency: Duration,
        owner: SinkOwner?, timeout: Duration = .seconds(5)
    ) throws(SpeakersError) {
        self.name = name
        self.connection = connection
        self.hook = .allocate(capacity: 1)
        self.hook.initialize(to: spa_hook())
        self.streamEvents = .allocate(capacity: 1)
        self.streamEvents.initialize(to: Self.makeStreamEvents())
        try connection.locked { () throws(SpeakersError) in
            if let failure = connection.failure {
                throw SpeakersError(.soundServerUnavailable, "the connection to PipeWire broke: \(failure)")
            }
            connection.register(self)
            try self.connect(description: description, latency: latency, owner: owner)
            try self.waitUntilMade(timeout: timeout)
        }
    }

    deinit {
        self.close()
        self.hook.deallocate()
        self.streamEvents.deallocate()
    }

    /// Tells the graph the sink's latency from now on.
    func setLatency(_ latency: Duration) {
        pw_thread_loop_lock(self.loop)
        self.updateLatency(latency)
        pw_thread_loop_unlock(self.loop)
    }

    /// Removes the node; a tap reading ends.
    func close() {
        pw_thread_loop_lock(self.loop)
        self.connection.unregister(self)
        if let stream = self.stream {
            spa_hook_remove(self.hook)
            pw_stream_disconnect(stream)
            pw_stream_destroy(stream)
            self.stream = nil
        }
        pw_thread_loop_unlock(self.loop)
        self.fail(CaptureError(.sourceVanished, "the sink \(self.name) was removed"))
    }

    /// A reader of what applications play into the sink from now on; an
    /// earlier tap ends. While nothing plays, it reads silence in real time.
    func tap() -> PipeWireSinkTap {
        self.condition.lock()
        defer { self.condition.unlock() }
        self.nextTapID += 1
        self.tapID = self.nextTapID
        self.ring.clear()
        self.condition.broadcast()
        return PipeWireSinkTap(sink: self, id: self.nextTapID, start: .now)
    }

    // MARK: The tap's side

    /// Fills `samples` for tap `id`: the sound that arrived, as soon as a
    /// whole chunk is there; silence (after what part of a chunk arrived)
    /// when nothing came for `idle` past the chunk's due time `due`.
    /// Returns the time of the first sample.
    func read(
        tap id: UInt64, into samples: UnsafeMutableBufferPointer<Float>, due: HostTime, idle: Duration
    ) throws(CaptureError) -> HostTime {
        self.condition.lock()
        defer { self.condition.unlock() }
        while true {
            if let failure = self.failure { throw failure }
            guard self.tapID == id else { throw CaptureError(.sourceVanished, "the recording of \(self.name) ended") }
            if self.ring.available >= samples.count, let read = self.ring.read(into: samples) { return read.time }
            let now = HostTime.now
            let silenceAt = due.advanced(by: idle)
            if now >= silenceAt {
                for index in samples.indices { samples[index] = 0 }
                return self.ring.read(into: samples)?.time ?? due
            }
            _ = self.condition.wait(
                until: Date(timeIntervalSinceNow: Double(now.duration(to: silenceAt) / .seconds(1))))
        }
    }

    /// Ends tap `id`'s reading (it is being stopped, or has gone).
    func endTap(_ id: UInt64) {
        self.condition.lock()
        defer { self.condition.unlock() }
        guard self.tapID == id else { return }
        self.tapID = nil
        self.ring.clear()
        self.condition.broadcast()
    }

    // MARK: Under the thread loop's lock

    private func connect(description: String, latency: Duration, owner: SinkOwner?) throws(SpeakersError) {
        let properties = pw_properties_new_string("")
        var values = [
            ("media.class", "Audio/Sink"), ("node.name", self.name), ("node.description", description),
            ("media.name", description), ("node.latency", "480/48000"),
        ]
        if let owner { values.append((SinkOwner.property, owner.description)) }
        for (key, value) in values { pw_properties_set(properties, key, value) }
        guard let stream = pw_stream_new(self.connection.core, self.name, properties) else {
            throw SpeakersError(.requestRefused, "PipeWire did not make the sink \(self.name)")
        }
        self.stream = stream
        pw_stream_add_listener(stream, self.hook, self.streamEvents, Unmanaged.passUnretained(self).toOpaque())
        let connected = cpw_stream_connect_audio_input(
            stream, UInt32(Self.sampleRate), UInt32(Self.channelCount),
            pw_stream_flags(PW_STREAM_FLAG_MAP_BUFFERS.rawValue))
        guard connected >= 0 else {
            throw SpeakersError(
                .requestRefused, "PipeWire refused the sink \(self.name): \(String(cString: strerror(-connected)))")
        }
        self.updateLatency(latency)
    }

    private func waitUntilMade(timeout: Duration) throws(SpeakersError) {
        let deadline = ContinuousClock.now + timeout
        while self.state == PW_STREAM_STATE_CONNECTING, ContinuousClock.now < deadline {
            _ = pw_thread_loop_timed_wait(self.loop, 1)
        }
        switch self.state {
        case PW_STREAM_STATE_PAUSED, PW_STREAM_STATE_STREAMING: return
        case PW_STREAM_STATE_CONNECTING:
            throw SpeakersError(
                .soundServerUnavailable, "PipeWire did not make the sink \(self.name) within \(timeout)")
        default:
            self.condition.lock()
            let reason = self.failure.map { "\($0)" } ?? "the node failed"
            self.condition.unlock()
            throw SpeakersError(.requestRefused, "PipeWire refused the sink \(self.name): \(reason)")
        }
    }

    private func updateLatency(_ latency: Duration) {
        guard let stream = self.stream else { return }
        let nanoseconds = UInt64(max(0, latency / .nanoseconds(1)))
        _ = cpw_stream_report_input_latency(stream, nanoseconds)
    }

    // MARK: Callbacks (on PipeWire's thread, its lock held)

    private func process() {
        guard let stream = self.stream else { return }
        let now = HostTime.now
        while let buffer = pw_stream_dequeue_buffer(stream) {
            defer { pw_stream_queue_buffer(stream, buffer) }
            guard let spaBuffer = buffer.pointee.buffer, spaBuffer.pointee.n_datas > 0,
                let plane = spaBuffer.pointee.datas, let data = plane.pointee.data, let chunk = plane.pointee.chunk
            else { continue }
            let offset = min(Int(chunk.pointee.offset), Int(plane.pointee.maxsize))
            let size = min(Int(chunk.pointee.size), Int(plane.pointee.maxsize) - offset)
            let samples = UnsafeBufferPointer(
                start: (data + offset).assumingMemoryBound(to: Float.self), count: size / MemoryLayout<Float>.size)
            self.condition.lock()
            if self.tapID != nil {
                self.ring.write(samples, at: now)
                self.condition.broadcast()
            }
            self.condition.unlock()
        }
    }

    private func stateChanged(_ state: pw_stream_state, _ message: UnsafePointer<CChar>?) {
        self.state = state
        if state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED {
            let reason = message.map { String(cString: $0) } ?? "disconnected"
            self.fail(CaptureError(.sourceVanished, "the sink \(self.name) ended: \(reason)"))
        }
        pw_thread_loop_signal(self.loop, false)
    }

    private func fail(_ error: CaptureError) {
        self.condition.lock()
        if self.failure == nil { self.failure = error }
        self.condition.broadcast()
        self.condition.unlock()
    }

    private static func sink(_ data: UnsafeMutableRawPointer?) -> PipeWireSink? {
        data.map { Unmanaged<PipeWireSink>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func makeStreamEvents() -> pw_stream_events {
        var events = pw_stream_events()
        events.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.state_changed = { data, _, state, message in PipeWireSink.sink(data)?.stateChanged(state, message) }
        events.process = { data in PipeWireSink.sink(data)?.process() }
        return events
    }

    /// The connection it was made on broke (lock held).
    func connectionBroke(_ reason: String) {
        self.fail(CaptureError(.sourceVanished, "the connection to PipeWire broke: \(reason)"))
        self.state = PW_STREAM_STATE_ERROR
    }
}

/// One reading of a ``PipeWireSink``: what applications play into it, in
/// chunks dated by their arrival, silence while nothing plays; a
/// ``DesktopAudioCapture`` reads it as it reads a monitor.
final class PipeWireSinkTap: SoundRecording {
    private let sink: PipeWireSink
    private let id: UInt64
    /// When the next chunk is due, and how late the last one was read.
    private let timing: NIOLockedValueBox<(due: HostTime, latency: Duration)>
    /// How long past a chunk's due time silence is read instead.
    static let idle: Duration = .milliseconds(100)

    init(sink: PipeWireSink, id: UInt64, start: HostTime) {
        self.sink = sink
        self.id = id
        self.timing = NIOLockedValueBox((due: start, latency: .zero))
    }

    deinit { self.sink.endTap(self.id) }

    func read(into bytes: UnsafeMutableRawBufferPointer) throws(CaptureError) -> HostTime {
        let samples = bytes.bindMemory(to: Float.self)
        let due = self.timing.withLockedValue { $0.due }
        let time = try self.sink.read(tap: self.id, into: samples, due: due, idle: Self.idle)
        let end = time.advanced(
            byFrames: samples.count / PipeWireSink.channelCount, sampleRate: PipeWireSink.sampleRate)
        self.timing.withLockedValue { $0 = (end, end.duration(to: .now)) }
        return time
    }

    var latency: Duration { self.timing.withLockedValue { $0.latency } }

    func interrupt() { self.sink.endTap(self.id) }
}
