import CPulse
import Foundation
import NIOConcurrencyHelpers

/// A change the sound server reported.
enum SoundServerEvent: Sendable, Hashable {
    /// A sink appeared or changed: its state, volume or mute.
    case sinkChanged(SoundServerSink)
    /// The sink with this index went away.
    case sinkRemoved(index: UInt32)
    /// The connection to the server ended (the server stopped or restarted).
    case serverLost(String)
}

/// A connection to the user's sound server through libpulse's asynchronous
/// API on a threaded main loop: it loads and unloads `module-null-sink`
/// (one sink per device), reads the sinks, sets their volume and mute, and
/// reports every change to a sink (``events``).
///
/// Whether a sink plays is whether an app's stream into it is connected and
/// not corked (the sink's inputs), not the sink's state: PipeWire's pulse
/// server keeps a sink RUNNING while its monitor is recorded — as ours is
/// while a stream runs — and sends no sink event when the last input goes
/// (measured on 0.3.65: `pactl subscribe` shows only the sink-input's
/// removal). PulseAudio's RUNNING means the same as an uncorked input
/// (`pa_sink_used_by` counts uncorked inputs), so both servers agree.
///
/// libpulse rather than PipeWire's own API: one protocol serves both
/// servers a desktop runs (PulseAudio, and PipeWire through
/// `pipewire-pulse`, which implements `module-null-sink` and the
/// introspection calls), CastCapture already records through it, and the
/// sinks it makes are the ordinary outputs the desktop's sound settings
/// list. The methods block for one round trip to the server; they must not
/// be called from the main loop's thread (nothing here does).
final class SoundServerConnection: @unchecked Sendable {
    // @unchecked Sendable: the context is touched only with the main loop's lock held
    // (or on its thread, in callbacks, which run with it held); `closed` is locked.
    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let closed = NIOLockedValueBox(false)
    private let continuation: AsyncStream<SoundServerEvent>.Continuation
    /// The sinks an uncorked input plays into (main loop's lock held).
    private var playingSinks: Set<UInt32> = []
    /// The census of inputs under way (main loop's thread): the sinks their list names so far.
    private var census: Set<UInt32> = []
    /// Every change to a sink, and the server going away; one reader.
    let events: AsyncStream<SoundServerEvent>

    /// Connects to `server` (`nil`: `PULSE_SERVER`, then the user's server) and subscribes to
    /// changes of the sinks and of their inputs.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/soundServerUnavailable`` when no server answers.
    init(server: String?, clientName: String = "cast speakers") throws(SpeakersError) {
        (self.events, self.continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1_024))
        guard let loop = pa_threaded_mainloop_new() else {
            throw SpeakersError(.soundServerUnavailable, "libpulse could not make a main loop")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(loop), clientName) else {
            pa_threaded_mainloop_free(loop)
            throw SpeakersError(.soundServerUnavailable, "libpulse could not make a context")
        }
        self.loop = loop
        self.context = context
        let this = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(context, Self.stateChanged, this)
        pa_context_set_subscribe_callback(context, Self.subscriptionEvent, this)
        guard pa_threaded_mainloop_start(loop) == 0 else {
            pa_context_unref(context)
            pa_threaded_mainloop_free(loop)
            throw SpeakersError(.soundServerUnavailable, "libpulse could not start its main loop thread")
        }
        do {
            try self.connect(server: server)
        } catch {
            self.close()
            throw error
        }
    }

    deinit {
        self.close()
    }

    private func connect(server: String?) throws(SpeakersError) {
        pa_threaded_mainloop_lock(self.loop)
        defer { pa_threaded_mainloop_unlock(self.loop) }
        guard pa_context_connect(self.context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw SpeakersError(.soundServerUnavailable, self.lastError(server: server))
        }
        while true {
            let state = pa_context_get_state(self.context)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw SpeakersError(.soundServerUnavailable, self.lastError(server: server))
            }
            pa_threaded_mainloop_wait(self.loop)
        }
        let reply = Reply(loop: self.loop)
        try self.await(
            reply,
            pa_context_subscribe(
                self.context,
                pa_subscription_mask_t(PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue),
                Self.succeeded, Unmanaged.passUnretained(reply).toOpaque()),
            "subscribing to sink changes")
        try self.await(
            reply,
            pa_context_get_sink_input_info_list(
                self.context, Self.inputListed, Unmanaged.passUnretained(self).toOpaque()),
            "listing the sinks' inputs")
    }

    /// Disconnects; no event follows. Idempotent.
    func close() {
        let wasClosed = self.closed.withLockedValue { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        // The last reference can go in a callback (its owner dropped it meanwhile): then this
        // runs on the main loop's own thread, which holds the lock, and may neither lock
        // (libpulse aborts: seen once in a busy make test) nor stop and free its own loop.
        let onLoopThread = pa_threaded_mainloop_in_thread(self.loop) != 0
        if !onLoopThread { pa_threaded_mainloop_lock(self.loop) }
        pa_context_set_state_callback(self.context, nil, nil)
        pa_context_set_subscribe_callback(self.context, nil, nil)
        pa_context_disconnect(self.context)
        self.continuation.finish()
        let ended = EndedLoop(loop: self.loop, context: self.context)
        guard onLoopThread else {
            pa_threaded_mainloop_unlock(self.loop)
            ended.free()
            return
        }
        // Freed from another thread once this callback has returned.
        DispatchQueue.global().async { ended.free() }
    }

    /// A main loop and its context to stop and free, from any thread but the loop's own.
    // @unchecked Sendable: the pointers are used once, by `free()`, after every other use ended.
    private struct EndedLoop: @unchecked Sendable {
        let loop: OpaquePointer
        let context: OpaquePointer

        func free() {
            pa_threaded_mainloop_stop(self.loop)
            pa_context_unref(self.context)
            pa_threaded_mainloop_free(self.loop)
        }
    }

    // MARK: Requests

    /// Loads `module-null-sink` as sink `name` shown as `description`,
    /// marked as `owner`'s (property `cast.owner`); the module's index.
    /// The server may name the sink otherwise when `name` is taken
    /// (PulseAudio adds `.2`): the sink whose ``SoundServerSink/module`` is
    /// the index returned is this one.
    func loadNullSink(name: String, description: String, owner: SinkOwner?) throws(SpeakersError) -> UInt32 {
        let argument =
            "sink_name=\(Self.moduleArgument(name)) format=float32le rate=48000 channels=2 "
            + "sink_properties=\"device.description='\(Self.moduleArgument(description))'"
            + (owner.map { " \(SinkOwner.property)='\($0)'" } ?? "") + "\""
        return try self.locked { () throws(SpeakersError) -> UInt32 in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_load_module(
                    self.context, "module-null-sink", argument, Self.indexed, Unmanaged.passUnretained(reply).toOpaque()
                ),
                "loading a sink for \(description)")
            guard reply.index != UInt32.max else {
                throw SpeakersError(.requestRefused, "module-null-sink \(argument): \(self.lastError(server: nil))")
            }
            return reply.index
        }
    }

    /// Unloads the module `index` (a sink this connection loaded).
    func unloadModule(_ index: UInt32) throws(SpeakersError) {
        try self.locked { () throws(SpeakersError) in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_unload_module(
                    self.context, index, Self.succeeded, Unmanaged.passUnretained(reply).toOpaque()),
                "unloading module \(index)")
            guard reply.success else { throw SpeakersError(.requestRefused, "unloading module \(index)") }
        }
    }

    /// Every loaded module's index and argument.
    func modules() throws(SpeakersError) -> [(index: UInt32, name: String, argument: String)] {
        try self.locked { () throws(SpeakersError) in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_get_module_info_list(
                    self.context, Self.moduleListed, Unmanaged.passUnretained(reply).toOpaque()),
                "listing modules")
            return reply.modules
        }
    }

    /// The server's name: `pulseaudio`, or `PulseAudio (on PipeWire 0.3.65)`
    /// where PipeWire's pulse server answers.
    func serverName() throws(SpeakersError) -> String {
        try self.locked { () throws(SpeakersError) in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_get_server_info(
                    self.context, Self.serverDescribed, Unmanaged.passUnretained(reply).toOpaque()),
                "asking for the server's name")
            return reply.serverName
        }
    }

    /// Every sink the server has.
    func sinks() throws(SpeakersError) -> [SoundServerSink] {
        try self.locked { () throws(SpeakersError) in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_get_sink_info_list(
                    self.context, Self.sinkListed, Unmanaged.passUnretained(reply).toOpaque()),
                "listing sinks")
            return reply.sinks.map { sink in
                var sink = sink
                sink.isPlaying = self.playingSinks.contains(sink.index)
                return sink
            }
        }
    }

    /// Sets the volume of every channel of sink `name` to `volume` (0…1 at 100 %).
    func setVolume(_ volume: Double, ofSink name: String) throws(SpeakersError) {
        var levels = pa_cvolume()
        let level = pa_volume_t((max(0, min(volume, 1.5)) * Double(cpulse_volume_norm())).rounded())
        pa_cvolume_set(&levels, 2, level)
        try self.locked { () throws(SpeakersError) in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_set_sink_volume_by_name(
                    self.context, name, &levels, Self.succeeded, Unmanaged.passUnretained(reply).toOpaque()),
                "setting the volume of \(name)")
            guard reply.success else { throw SpeakersError(.requestRefused, "setting the volume of \(name)") }
        }
    }

    /// Mutes or unmutes sink `name`.
    func setMuted(_ muted: Bool, sink name: String) throws(SpeakersError) {
        try self.locked { () throws(SpeakersError) in
            let reply = Reply(loop: self.loop)
            try self.await(
                reply,
                pa_context_set_sink_mute_by_name(
                    self.context, name, muted ? 1 : 0, Self.succeeded, Unmanaged.passUnretained(reply).toOpaque()),
                "muting \(name)")
            guard reply.success else { throw SpeakersError(.requestRefused, "muting \(name)") }
        }
    }

    // MARK: Plumbing

    /// What one request's callbacks leave; they signal the main loop.
    private final class Reply {
        let loop: OpaquePointer
        var index = UInt32.max
        var success = false
        var sinks: [SoundServerSink] = []
        var modules: [(index: UInt32, name: String, argument: String)] = []
        var serverName = ""

        init(loop: OpaquePointer) { self.loop = loop }
    }

    private func locked<Result>(_ body: () throws(SpeakersError) -> Result) throws(SpeakersError) -> Result {
        guard !self.closed.withLockedValue({ $0 }) else {
            throw SpeakersError(.soundServerUnavailable, "the connection is closed")
        }
        pa_threaded_mainloop_lock(self.loop)
        defer { pa_threaded_mainloop_unlock(self.loop) }
        guard pa_context_get_state(self.context) == PA_CONTEXT_READY else {
            throw SpeakersError(.soundServerUnavailable, "the sound server went away")
        }
        return try body()
    }

    /// Waits (lock held) until `operation` is done; `reply` is alive meanwhile.
    private func await(_ reply: Reply, _ operation: OpaquePointer?, _ what: String) throws(SpeakersError) {
        guard let operation else {
            throw SpeakersError(.requestRefused, "\(what): \(self.lastError(server: nil))")
        }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            pa_threaded_mainloop_wait(self.loop)
        }
        withExtendedLifetime(reply) {}
        guard pa_context_get_state(self.context) == PA_CONTEXT_READY else {
            throw SpeakersError(.soundServerUnavailable, "\(what): the sound server went away")
        }
    }

    private func lastError(server: String?) -> String {
        let text = pa_strerror(pa_context_errno(self.context)).map { String(cString: $0) } ?? "unknown error"
        return server.map { "\(text) (server \($0))" } ?? text
    }

    /// `text` without the characters that would end a module argument or its quoted properties.
    static func moduleArgument(_ text: String) -> String {
        String(text.filter { !"\"'\\".contains($0) && !$0.isNewline })
    }

    private static func reply(_ userdata: UnsafeMutableRawPointer?) -> Reply? {
        userdata.map { Unmanaged<Reply>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func connection(_ userdata: UnsafeMutableRawPointer?) -> SoundServerConnection? {
        userdata.map { Unmanaged<SoundServerConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let succeeded: pa_context_success_cb_t = { _, success, userdata in
        guard let reply = SoundServerConnection.reply(userdata) else { return }
        reply.success = success != 0
        pa_threaded_mainloop_signal(reply.loop, 0)
    }

    private static let indexed: pa_context_index_cb_t = { _, index, userdata in
        guard let reply = SoundServerConnection.reply(userdata) else { return }
        reply.index = index
        pa_threaded_mainloop_signal(reply.loop, 0)
    }

    private static let serverDescribed: pa_server_info_cb_t = { _, info, userdata in
        guard let reply = SoundServerConnection.reply(userdata) else { return }
        reply.serverName = info?.pointee.server_name.map { String(cString: $0) } ?? ""
        reply.success = true
        pa_threaded_mainloop_signal(reply.loop, 0)
    }

    private static let moduleListed: pa_module_info_cb_t = { _, info, end, userdata in
        guard let reply = SoundServerConnection.reply(userdata) else { return }
        if end == 0, let info = info?.pointee {
            reply.modules.append(
                (
                    info.index, info.name.map { String(cString: $0) } ?? "",
                    info.argument.map { String(cString: $0) } ?? ""
                ))
        } else {
            pa_threaded_mainloop_signal(reply.loop, 0)
        }
    }

    private static let sinkListed: pa_sink_info_cb_t = { _, info, end, userdata in
        guard let reply = SoundServerConnection.reply(userdata) else { return }
        if end == 0, let info {
            reply.sinks.append(SoundServerConnection.sink(info.pointee, isPlaying: false))
        } else {
            pa_threaded_mainloop_signal(reply.loop, 0)
        }
    }

    private static func sink(_ info: pa_sink_info, isPlaying: Bool) -> SoundServerSink {
        var volume = info.volume
        let average = pa_cvolume_avg(&volume)
        return SoundServerSink(
            name: info.name.map { String(cString: $0) } ?? "", index: info.index,
            description: info.description.map { String(cString: $0) } ?? "",
            isPlaying: isPlaying,
            volume: Double(average) / Double(cpulse_volume_norm()), isMuted: info.mute != 0,
            amplitude: pa_sw_volume_to_linear(average),
            module: info.owner_module == UInt32.max ? nil : info.owner_module)
    }

    // Callbacks for the connection's lifetime (main loop thread, lock held).

    private static let stateChanged: pa_context_notify_cb_t = { context, userdata in
        guard let connection = SoundServerConnection.connection(userdata) else { return }
        let state = pa_context_get_state(context)
        if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
            connection.continuation.yield(.serverLost(connection.lastError(server: nil)))
        }
        pa_threaded_mainloop_signal(connection.loop, 0)
    }

    private static let subscriptionEvent: pa_context_subscribe_cb_t = { context, type, index, userdata in
        guard let connection = SoundServerConnection.connection(userdata) else { return }
        let facility = type.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        if facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue {
            // An input came, went, moved, corked or uncorked: count them again.
            if let operation = pa_context_get_sink_input_info_list(context, SoundServerConnection.inputListed, userdata)
            {
                pa_operation_unref(operation)
            }
            return
        }
        guard facility == PA_SUBSCRIPTION_EVENT_SINK.rawValue else { return }
        if type.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue {
            connection.continuation.yield(.sinkRemoved(index: index))
            return
        }
        if let operation = pa_context_get_sink_info_by_index(
            context, index, SoundServerConnection.sinkChanged, userdata)
        {
            pa_operation_unref(operation)
        }
    }

    private static let sinkChanged: pa_sink_info_cb_t = { _, info, end, userdata in
        guard end == 0, let info, let connection = SoundServerConnection.connection(userdata) else { return }
        let isPlaying = connection.playingSinks.contains(info.pointee.index)
        connection.continuation.yield(.sinkChanged(SoundServerConnection.sink(info.pointee, isPlaying: isPlaying)))
    }

    /// One input of a census; at its end, each sink that started or stopped playing is read
    /// again and reported. (A list's items and end arrive together, so censuses never interleave.)
    private static let inputListed: pa_sink_input_info_cb_t = { context, info, end, userdata in
        guard let connection = SoundServerConnection.connection(userdata) else { return }
        if end == 0, let info {
            if info.pointee.corked == 0 { connection.census.insert(info.pointee.sink) }
            return
        }
        let changed = connection.census.symmetricDifference(connection.playingSinks)
        connection.playingSinks = connection.census
        connection.census = []
        for sink in changed {
            if let operation = pa_context_get_sink_info_by_index(
                context, sink, SoundServerConnection.sinkChanged, userdata)
            {
                pa_operation_unref(operation)
            }
        }
        pa_threaded_mainloop_signal(connection.loop, 0)
    }
}
