import CPulse
import CastStreaming
import Foundation

/// One application's sound, recorded through libpulse: a record stream on
/// each stream the application plays (`pa_stream_set_monitor_stream`, what
/// `parec --monitor-stream` does), so nothing else the desktop plays is
/// heard, mixed as a sink would mix them (``SoundMix``): two tabs of a
/// browser are both heard. The application is the one whose
/// `application.name` or `application.process.binary` is the name given
/// (letter case aside). Streams it opens later join the mix, those it
/// closes leave it; while it plays nothing, reads wait.
///
/// Measured with both servers a desktop runs (two `pacat` at 440 and 880 Hz
/// into one sink, `parec --monitor-stream` of the first): PulseAudio 16.1
/// and PipeWire 0.3.65's pulse server both give the 440 Hz alone;
/// WirePlumber links the application's output ports to the recording.
//
// @unchecked Sendable: every mutable field is touched with the main loop's
// lock held — by the reading thread under `pa_threaded_mainloop_lock`, or
// in libpulse's callbacks, which run on the loop's thread with it held.
// `loop`, `context`, `application` and `chunkBytes` never change.
final class ApplicationRecording: SoundRecording, @unchecked Sendable {
    /// The most streams of the application recorded at once; more are not heard.
    static let maximumStreams = 32

    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let application: String
    private let chunkBytes: Int
    /// The recordings, by the sink input each records.
    private var streams: [UInt32: OpaquePointer] = [:]
    /// A chunk's sound is handed out once every stream playing gave it; a
    /// stream that gave nothing for ten chunks is paused. A stream is placed
    /// by its stamps again only when they stray ten chunks from its
    /// continuation (the moment a chunk arrives jitters by more than one on
    /// a busy machine). A second at most is kept unread (a reader that
    /// stalls must not grow memory).
    private var mix: SoundMix
    private var interrupted = false
    private var failure: CaptureError?
    /// Listings under way after a change, kept alive until they answer.
    private var listings: [InputListing] = []

    /// Connects to `server` and records `application`'s streams.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/audioUnavailable`` when no
    ///   server answers or the application plays nothing now (naming what plays).
    init(server: String?, application: String, chunkBytes: Int) throws(CaptureError) {
        guard let loop = pa_threaded_mainloop_new() else {
            throw CaptureError(.audioUnavailable, "libpulse could not make a main loop")
        }
        guard let context = pa_context_new(pa_threaded_mainloop_get_api(loop), "cast") else {
            pa_threaded_mainloop_free(loop)
            throw CaptureError(.audioUnavailable, "libpulse could not make a context")
        }
        (self.loop, self.context) = (loop, context)
        self.application = application.lowercased()
        self.chunkBytes = chunkBytes
        let chunk = Duration.seconds(1) * chunkBytes / Self.bytesPerSecond
        self.mix = SoundMix(
            channels: DesktopAudioCapture.channelCount, sampleRate: DesktopAudioCapture.sampleRate,
            hold: chunk * 10, resync: chunk * 10, limit: .seconds(1))
        let this = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(context, Self.contextChanged, this)
        pa_context_set_subscribe_callback(context, Self.inputsChanged, this)
        guard pa_threaded_mainloop_start(loop) == 0 else {
            pa_context_unref(context)
            pa_threaded_mainloop_free(loop)
            throw CaptureError(.audioUnavailable, "libpulse could not start its main loop thread")
        }
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        try self.connect(server: server)
        let listing = self.listInputs()
        guard !listing.matching.isEmpty else {
            let playing = Set(listing.names).sorted()
            throw CaptureError(
                .audioUnavailable,
                "no application named \(application) plays sound now"
                    + (playing.isEmpty ? "" : "; playing: \(playing.joined(separator: ", "))"))
        }
        guard self.recordNew(listing.matching) else {
            throw CaptureError(.audioUnavailable, "cannot record \(application)'s sound: \(self.lastError)")
        }
    }

    private static var bytesPerSecond: Int {
        DesktopAudioCapture.sampleRate * DesktopAudioCapture.channelCount * MemoryLayout<Float>.size
    }

    deinit {
        pa_threaded_mainloop_lock(self.loop)
        for index in self.streams.keys { self.closeStream(index) }
        pa_context_set_state_callback(self.context, nil, nil)
        pa_context_set_subscribe_callback(self.context, nil, nil)
        pa_context_disconnect(self.context)
        pa_threaded_mainloop_unlock(self.loop)
        pa_threaded_mainloop_stop(self.loop)
        pa_context_unref(self.context)
        pa_threaded_mainloop_free(self.loop)
    }

    /// Connects and subscribes to the sink inputs (lock held); a failure tears nothing down (`deinit` does).
    private func connect(server: String?) throws(CaptureError) {
        let refused = { (what: String) in
            CaptureError(.audioUnavailable, "\(what) the sound server \(server ?? "(default)"): \(self.lastError)")
        }
        guard pa_context_connect(self.context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw refused("cannot connect to")
        }
        while pa_context_get_state(self.context) != PA_CONTEXT_READY {
            let state = pa_context_get_state(self.context)
            guard state != PA_CONTEXT_FAILED, state != PA_CONTEXT_TERMINATED else { throw refused("cannot connect to") }
            pa_threaded_mainloop_wait(self.loop)
        }
        self.wait(
            pa_context_subscribe(
                self.context, PA_SUBSCRIPTION_MASK_SINK_INPUT, Self.done, Unmanaged.passUnretained(self).toOpaque()))
    }

    /// Lists the sink inputs (lock held), waiting for the answer.
    private func listInputs() -> InputListing {
        let listing = InputListing(application: self.application, loop: self.loop)
        let operation = pa_context_get_sink_input_info_list(
            self.context, Self.inputListed, Unmanaged.passUnretained(listing).toOpaque())
        self.wait(operation)
        return listing
    }

    /// Waits (lock held) until `operation` is done.
    private func wait(_ operation: OpaquePointer?) {
        guard let operation else { return }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_threaded_mainloop_wait(self.loop) }
    }

    /// Records those of sink inputs `indices` not recorded yet (lock held),
    /// up to ``maximumStreams``; whether the server took every recording.
    @discardableResult
    private func recordNew(_ indices: [UInt32]) -> Bool {
        var taken = true
        for index in indices where self.streams[index] == nil && self.streams.count < Self.maximumStreams {
            taken = self.record(index) && taken
        }
        return taken
    }

    /// Records sink input `index` from now on (lock held); whether the server took the recording.
    private func record(_ index: UInt32) -> Bool {
        var spec = pa_sample_spec(
            format: PA_SAMPLE_FLOAT32LE, rate: UInt32(DesktopAudioCapture.sampleRate),
            channels: UInt8(DesktopAudioCapture.channelCount))
        guard let stream = pa_stream_new(self.context, "Cast mirroring", &spec, nil) else { return false }
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,
            fragsize: UInt32(self.chunkBytes))
        let this = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_read_callback(stream, Self.readable, this)
        pa_stream_set_state_callback(stream, Self.streamChanged, this)
        // The server records the sink input's own sound from the monitor of the sink it plays into.
        pa_stream_set_monitor_stream(stream, index)
        guard pa_stream_connect_record(stream, nil, &attributes, PA_STREAM_ADJUST_LATENCY) == 0 else {
            pa_stream_set_read_callback(stream, nil, nil)
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_unref(stream)
            return false
        }
        self.streams[index] = stream
        return true
    }

    /// Stops recording sink input `index` (lock held); what it gave is still mixed.
    private func closeStream(_ index: UInt32) {
        guard let stream = self.streams.removeValue(forKey: index) else { return }
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        self.mix.end(index)
    }

    /// Fills `bytes` with the next sound of the mix, waiting for it; returns when it was captured.
    func read(into bytes: UnsafeMutableRawBufferPointer) throws(CaptureError) -> HostTime {
        pa_threaded_mainloop_lock(self.loop)
        defer { pa_threaded_mainloop_unlock(self.loop) }
        while true {
            if self.interrupted { throw CaptureError(.sourceVanished, "recording stopped") }
            if let failure = self.failure { throw failure }
            // Mixed straight into the caller's chunk: nothing allocated per read.
            if let time = bytes.withMemoryRebound(to: Float.self, { self.mix.take(into: $0, now: .now) }) {
                return time
            }
            pa_threaded_mainloop_wait(self.loop)
        }
    }

    /// The sound is stamped as it arrives: nothing beyond it.
    var latency: Duration { .zero }

    func interrupt() {
        pa_threaded_mainloop_lock(self.loop)
        self.interrupted = true
        pa_threaded_mainloop_signal(self.loop, 0)
        pa_threaded_mainloop_unlock(self.loop)
    }

    private var lastError: String {
        pa_strerror(pa_context_errno(self.context)).map { String(cString: $0) } ?? "unknown error"
    }

    // MARK: Callbacks (the loop's thread, lock held)

    private static func recording(_ userdata: UnsafeMutableRawPointer?) -> ApplicationRecording? {
        userdata.map { Unmanaged<ApplicationRecording>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let done: pa_context_success_cb_t = { _, _, userdata in
        guard let recording = ApplicationRecording.recording(userdata) else { return }
        pa_threaded_mainloop_signal(recording.loop, 0)
    }

    private static let contextChanged: pa_context_notify_cb_t = { context, userdata in
        guard let recording = ApplicationRecording.recording(userdata) else { return }
        let state = pa_context_get_state(context)
        if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
            recording.failure = CaptureError(.sourceVanished, "the sound server went away")
        }
        pa_threaded_mainloop_signal(recording.loop, 0)
    }

    /// A sink input came or went: one that ended leaves the mix; after a new
    /// one, the application's streams not recorded yet join it.
    private static let inputsChanged: pa_context_subscribe_cb_t = { context, event, index, userdata in
        guard let recording = ApplicationRecording.recording(userdata) else { return }
        let type = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
        if type == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue {
            recording.closeStream(index)
            pa_threaded_mainloop_signal(recording.loop, 0)
        }
        guard type == PA_SUBSCRIPTION_EVENT_NEW.rawValue else { return }
        let listing = InputListing(application: recording.application, loop: recording.loop, answering: recording)
        recording.listings.append(listing)
        let operation = pa_context_get_sink_input_info_list(
            context, ApplicationRecording.inputListed, Unmanaged.passUnretained(listing).toOpaque())
        if let operation { pa_operation_unref(operation) }
    }

    private static let inputListed: pa_sink_input_info_cb_t = { _, info, end, userdata in
        guard let userdata else { return }
        let listing = Unmanaged<InputListing>.fromOpaque(userdata).takeUnretainedValue()
        if end == 0, let info = info?.pointee {
            listing.add(info)
            return
        }
        pa_threaded_mainloop_signal(listing.loop, 0)
        // A listing after a change: the application's streams not recorded yet join the mix.
        guard let recording = listing.answering else { return }
        recording.listings.removeAll { $0 === listing }
        recording.recordNew(listing.matching)
    }

    private static let readable: pa_stream_request_cb_t = { stream, _, userdata in
        guard let recording = ApplicationRecording.recording(userdata), let stream else { return }
        let index = pa_stream_get_monitor_stream(stream)
        var data: UnsafeRawPointer?
        var length = 0
        while pa_stream_peek(stream, &data, &length) == 0, length > 0 {
            let count = length / MemoryLayout<Float>.size
            // Stamped as it arrives, less its own length.
            let captured = HostTime.now.advanced(
                by: .zero - .seconds(1) * (count / DesktopAudioCapture.channelCount) / DesktopAudioCapture.sampleRate)
            if let data {
                recording.mix.add(
                    UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count),
                    from: index, capturedAt: captured)
            } else {
                // A hole: silence.
                let silence = [Float](repeating: 0, count: count)
                silence.withUnsafeBufferPointer { recording.mix.add($0, from: index, capturedAt: captured) }
            }
            pa_stream_drop(stream)
        }
        pa_threaded_mainloop_signal(recording.loop, 0)
    }

    private static let streamChanged: pa_stream_notify_cb_t = { stream, userdata in
        guard let recording = ApplicationRecording.recording(userdata), let stream else { return }
        let state = pa_stream_get_state(stream)
        // A stream recorded ended (its application closed it): it leaves the mix.
        let index = pa_stream_get_monitor_stream(stream)
        if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED, recording.streams[index] == stream {
            recording.closeStream(index)
            pa_threaded_mainloop_signal(recording.loop, 0)
        }
    }
}

/// The sink inputs a listing saw: the application's, and every application's name.
private final class InputListing {
    let application: String
    let loop: OpaquePointer
    /// The recording that asked after a change, to record the matches it does not yet; `nil` when one waits for the answer.
    weak var answering: ApplicationRecording?
    var matching: [UInt32] = []
    var names: [String] = []

    init(application: String, loop: OpaquePointer, answering: ApplicationRecording? = nil) {
        self.application = application
        self.loop = loop
        self.answering = answering
    }

    func add(_ info: pa_sink_input_info) {
        let property = { (key: String) in pa_proplist_gets(info.proplist, key).map { String(cString: $0) } }
        let name = property("application.name")
        let binary = property("application.process.binary")
        if let name, name != "cast" { self.names.append(name) }
        if [name, binary].contains(where: { $0?.lowercased() == self.application }) {
            self.matching.append(info.index)
        }
    }
}
