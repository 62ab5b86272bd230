import CPipeWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads the pictures of one PipeWire video node — a screen-cast stream a
/// Wayland compositor made for the portal — through libpipewire-0.3.
///
/// The stream asks for 32-bit raw video (BGRx, BGRA, RGBx or RGBA, as
/// compositors offer): first as linear DMA-BUFs (DRM modifier
/// `DRM_FORMAT_MOD_LINEAR`, what a GPU's buffer is when the CPU can read
/// it through a mapping), else in shared memory (`MemFd` or `MemPtr`).
/// Shared memory PipeWire maps; a DMA-BUF this grabber maps when the buffer
/// is added and reads between `DMA_BUF_IOCTL_SYNC` start and end, as
/// Chromium's `shared_screencast_stream.cc` does without EGL. Tiled
/// modifiers, which need the GPU to read, are not offered.
///
/// Its thread keeps the newest buffer and gives the older ones back at
/// once; the capture converts the newest while holding the thread loop's
/// lock, so PipeWire can neither reuse nor free it meanwhile, and no
/// picture is copied. A crop region (`SPA_META_VideoCrop`, how compositors
/// mark a window inside a larger buffer) is honoured.
///
/// The node going away (the user stopped sharing, the compositor quit),
/// the stream failing or the connection breaking end the capture with
/// `CaptureError.Code.sourceVanished`.
//
// @unchecked Sendable: all mutable state is guarded by the PipeWire thread
// loop's lock, taken by its own thread around every callback and by the
// capture thread around every access.
final class PipeWireGrabber: FrameGrabber, @unchecked Sendable {
    private static let initialized: Bool = {
        pw_init(nil, nil)
        return true
    }()
    /// The pixel formats asked for, the first preferred; each is one
    /// `CapturedImage.ChannelOrder` libyuv converts.
    private static let formats: [(format: spa_video_format, order: CapturedImage.ChannelOrder)] = [
        (SPA_VIDEO_FORMAT_BGRx, .bgrx), (SPA_VIDEO_FORMAT_BGRA, .bgrx),
        (SPA_VIDEO_FORMAT_RGBx, .rgbx), (SPA_VIDEO_FORMAT_RGBA, .rgbx),
    ]
    /// `PW_ID_CORE`: errors about the connection itself.
    private static let coreID: UInt32 = 0
    /// `SPA_CHUNK_FLAG_CORRUPTED`.
    private static let chunkCorrupted: Int32 = 1 << 0

    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let core: OpaquePointer
    private let registry: OpaquePointer
    private var stream: OpaquePointer?
    private let nodeID: UInt32
    private let owner: (any ScreenCastOwner)?
    private let hooks: UnsafeMutablePointer<spa_hook>
    private let streamEvents: UnsafeMutablePointer<pw_stream_events>
    private let registryEvents: UnsafeMutablePointer<pw_registry_events>
    private let coreEvents: UnsafeMutablePointer<pw_core_events>

    // Guarded by the thread loop's lock.
    private var format: (width: Int, height: Int, order: CapturedImage.ChannelOrder, dmabuf: Bool)?
    /// The DMA-BUFs this grabber mapped, by buffer: the mapping and its length.
    private var mappings: [UnsafeMutablePointer<pw_buffer>: (base: UnsafeMutableRawPointer, length: Int)] = [:]
    private var newest: UnsafeMutablePointer<pw_buffer>?
    private var fresh = false
    private var failure: CaptureError?

    /// Connects through `remote` (a connected socket, which this grabber
    /// now owns) to node `nodeID`, and waits up to `timeout` for the
    /// stream's format. `owner` (the portal's session, a virtual monitor),
    /// when given, is closed with the grabber. With `size`, only that size
    /// is asked for: a virtual monitor takes the size its stream is given.
    ///
    /// - Throws: `CaptureError.Code.pipeWireUnavailable`
    ///   when the connection fails; `CaptureError.Code.sourceNotFound`
    ///   when no format arrives in time (no such node, no 32-bit format, or
    ///   no session manager to link the stream).
    init(
        remote: Int32, nodeID: UInt32, frameRate: Int, size: (width: Int, height: Int)? = nil,
        owner: (any ScreenCastOwner)?, timeout: Duration = .seconds(5)
    ) throws(CaptureError) {
        _ = Self.initialized
        let (loop, context, core, registry) = try Self.openConnection(remote: remote)
        self.loop = loop
        self.context = context
        self.core = core
        self.registry = registry
        self.nodeID = nodeID
        self.owner = owner
        self.hooks = .allocate(capacity: 3)
        self.hooks.initialize(repeating: spa_hook(), count: 3)
        self.streamEvents = .allocate(capacity: 1)
        self.streamEvents.initialize(to: Self.makeStreamEvents())
        self.registryEvents = .allocate(capacity: 1)
        self.registryEvents.initialize(to: Self.makeRegistryEvents())
        self.coreEvents = .allocate(capacity: 1)
        self.coreEvents.initialize(to: Self.makeCoreEvents())

        let stream = try self.makeStream()
        try self.connectStream(stream, frameRate: frameRate, size: size)
        guard pw_thread_loop_start(loop) >= 0 else {
            throw CaptureError(.pipeWireUnavailable, "cannot start the PipeWire thread")
        }
        try self.waitForFormat(timeout: timeout)
    }

    deinit {
        pw_thread_loop_lock(self.loop)
        if let stream = self.stream {
            pw_stream_disconnect(stream)
            pw_stream_destroy(stream)
        }
        // Destroying the stream removed its buffers (and unmapped them); anything left goes now.
        for mapping in self.mappings.values { munmap(mapping.base, mapping.length) }
        spa_hook_remove(self.hooks + 1)
        pw_proxy_destroy(self.registry)
        spa_hook_remove(self.hooks)
        pw_thread_loop_unlock(self.loop)
        pw_thread_loop_stop(self.loop)
        pw_core_disconnect(self.core)
        pw_context_destroy(self.context)
        pw_thread_loop_destroy(self.loop)
        self.hooks.deallocate()
        self.streamEvents.deallocate()
        self.registryEvents.deallocate()
        self.coreEvents.deallocate()
        self.owner?.close()
    }

    // MARK: FrameGrabber

    var size: (width: Int, height: Int) {
        get throws(CaptureError) {
            try self.locked { () throws(CaptureError) in
                if let failure = self.failure { throw failure }
                return self.format.map { ($0.width, $0.height) } ?? (0, 0)
            }
        }
    }

    func hasChanged() throws(CaptureError) -> Bool {
        try self.locked { () throws(CaptureError) in
            if let failure = self.failure { throw failure }
            return self.fresh
        }
    }

    func withCurrentImage(_ body: (CapturedImage) -> Void) throws(CaptureError) -> Bool {
        try self.locked { () throws(CaptureError) in
            if let failure = self.failure { throw failure }
            guard let newest = self.newest else { return false }
            self.fresh = false
            // A DMA-BUF is read between the kernel's sync calls (errors, such as a
            // driver without them, change nothing: the mapping is read anyway).
            let dmabuf = self.mappings[newest] != nil ? newest.pointee.buffer?.pointee.datas?.pointee.fd : nil
            if let dmabuf { _ = cpw_dmabuf_sync(Int32(truncatingIfNeeded: dmabuf), true) }
            body(self.currentImage())
            if let dmabuf { _ = cpw_dmabuf_sync(Int32(truncatingIfNeeded: dmabuf), false) }
            return true
        }
    }

    /// Whether the negotiated buffers are DMA-BUFs (else shared memory).
    var receivesDMABUFs: Bool {
        pw_thread_loop_lock(self.loop)
        defer { pw_thread_loop_unlock(self.loop) }
        return self.format?.dmabuf ?? false
    }

    // MARK: Setting up

    /// Creates the thread loop and context, connects through `remote` (taken
    /// in every case) and reads the registry; whatever was made is destroyed when a step fails.
    private static func openConnection(
        remote: Int32
    ) throws(CaptureError) -> (
        loop: OpaquePointer, context: OpaquePointer, core: OpaquePointer, registry: OpaquePointer
    ) {
        guard let loop = pw_thread_loop_new("cast.capture.pipewire", nil) else {
            close(remote)
            throw CaptureError(.pipeWireUnavailable, "cannot create a PipeWire thread loop")
        }
        guard let context = pw_context_new(pw_thread_loop_get_loop(loop), nil, 0) else {
            pw_thread_loop_destroy(loop)
            close(remote)
            throw CaptureError(.pipeWireUnavailable, "cannot create a PipeWire context")
        }
        // Takes the descriptor, also when it fails.
        guard let core = pw_context_connect_fd(context, remote, nil, 0) else {
            let reason = String(cString: strerror(errno))
            pw_context_destroy(context)
            pw_thread_loop_destroy(loop)
            throw CaptureError(.pipeWireUnavailable, "cannot connect to the PipeWire remote: \(reason)")
        }
        guard let registry = cpw_core_get_registry(core) else {
            pw_core_disconnect(core)
            pw_context_destroy(context)
            pw_thread_loop_destroy(loop)
            throw CaptureError(.pipeWireUnavailable, "cannot read the PipeWire registry")
        }
        return (loop, context, core, registry)
    }

    /// Listens to the core and the registry, then creates the video capture
    /// stream, keeps it in `stream` and listens to it too.
    private func makeStream() throws(CaptureError) -> OpaquePointer {
        let me = Unmanaged.passUnretained(self).toOpaque()
        cpw_core_add_listener(self.core, self.hooks, self.coreEvents, me)
        cpw_registry_add_listener(self.registry, self.hooks + 1, self.registryEvents, me)
        let properties = pw_properties_new_string("")
        for (key, value) in [("media.type", "Video"), ("media.category", "Capture"), ("media.role", "Screen")] {
            pw_properties_set(properties, key, value)
        }
        guard let stream = pw_stream_new(self.core, "cast-screen-capture", properties) else {
            throw CaptureError(.pipeWireUnavailable, "cannot create a PipeWire stream")
        }
        self.stream = stream
        pw_stream_add_listener(stream, self.hooks + 2, self.streamEvents, me)
        return stream
    }

    /// Connects `stream` to the node, offering the 32-bit formats at up to
    /// `frameRate` (and at `size` alone, when given): linear DMA-BUFs first,
    /// shared memory otherwise.
    private func connectStream(_ stream: OpaquePointer, frameRate: Int, size: (width: Int, height: Int)?)
        throws(CaptureError)
    {
        let nodeID = self.nodeID
        let fixed = size.map { spa_rectangle(width: UInt32(clamping: $0.width), height: UInt32(clamping: $0.height)) }
        let connected = Self.withPOD { builder in
            var formats = Self.formats.map { $0.format.rawValue }
            // Linear DMA-BUFs first, shared memory otherwise.
            return [Int64(CPW_MODIFIER_LINEAR), -1].map { modifier in
                cpw_video_format(
                    &builder, &formats, UInt32(formats.count),
                    fixed ?? spa_rectangle(width: 1, height: 1), fixed ?? spa_rectangle(width: 8192, height: 8192),
                    fixed ?? spa_rectangle(width: 1920, height: 1080),
                    spa_fraction(num: 0, denom: 1), spa_fraction(num: 360, denom: 1),
                    spa_fraction(num: UInt32(frameRate), denom: 1), modifier)
            }
        } apply: { params in
            pw_stream_connect(
                stream, SPA_DIRECTION_INPUT, nodeID,
                pw_stream_flags(PW_STREAM_FLAG_AUTOCONNECT.rawValue | PW_STREAM_FLAG_MAP_BUFFERS.rawValue),
                params.baseAddress, UInt32(params.count))
        }
        guard connected >= 0 else {
            throw CaptureError(
                .pipeWireUnavailable, "cannot connect the PipeWire stream: \(String(cString: strerror(-connected)))")
        }
    }

    // MARK: Under the lock

    private func locked<T>(_ body: () throws(CaptureError) -> T) throws(CaptureError) -> T {
        pw_thread_loop_lock(self.loop)
        defer { pw_thread_loop_unlock(self.loop) }
        return try body()
    }

    /// The newest buffer as a picture, its crop region applied; empty when
    /// the buffer is smaller than its format says.
    private func currentImage() -> CapturedImage {
        let empty = CapturedImage(base: nil, width: 0, height: 0, bytesPerRow: 0, order: self.format?.order ?? .bgrx)
        guard let format = self.format, let newest = self.newest, let buffer = newest.pointee.buffer,
            buffer.pointee.n_datas > 0, let plane = buffer.pointee.datas, let memory = plane.pointee.data,
            let chunk = plane.pointee.chunk
        else { return empty }
        let stride = chunk.pointee.stride > 0 ? Int(chunk.pointee.stride) : format.width * 4
        var region = (x: 0, y: 0, width: format.width, height: format.height)
        if let crop = spa_buffer_find_meta_data(buffer, SPA_META_VideoCrop.rawValue, MemoryLayout<spa_meta_region>.size)
        {
            let area = crop.assumingMemoryBound(to: spa_meta_region.self).pointee.region
            if area.size.width > 0, area.size.height > 0, area.position.x >= 0, area.position.y >= 0,
                Int(area.position.x) + Int(area.size.width) <= format.width,
                Int(area.position.y) + Int(area.size.height) <= format.height
            {
                region = (Int(area.position.x), Int(area.position.y), Int(area.size.width), Int(area.size.height))
            }
        }
        let offset = Int(chunk.pointee.offset)
        // A buffer smaller than its format says is not read past its end.
        guard
            offset + (region.y + region.height - 1) * stride + (region.x + region.width) * 4
                <= Int(plane.pointee.maxsize)
        else { return empty }
        return CapturedImage(
            base: memory + offset + region.y * stride + region.x * 4, width: region.width, height: region.height,
            bytesPerRow: stride, order: format.order)
    }

    /// Waits for the stream's format (up to `timeout`), then briefly for
    /// its first picture, so the capture does not start with black.
    private func waitForFormat(timeout: Duration) throws(CaptureError) {
        let deadline = ContinuousClock.now + timeout
        try self.locked { () throws(CaptureError) in
            while self.format == nil, self.failure == nil, ContinuousClock.now < deadline {
                _ = pw_thread_loop_timed_wait(self.loop, 1)
            }
            if let failure = self.failure, self.format == nil {
                // The stream failed before it ever had a format: nothing to link it to.
                throw CaptureError(.sourceNotFound, "PipeWire node \(self.nodeID) is not available", cause: failure)
            }
            if let failure = self.failure { throw failure }
            guard self.format != nil else {
                throw CaptureError(
                    .sourceNotFound,
                    "PipeWire node \(self.nodeID) sent no 32-bit video format within \(timeout) "
                        + "(is a session manager such as WirePlumber running?)")
            }
            let firstPicture = ContinuousClock.now + .seconds(1)
            while self.newest == nil, self.failure == nil, ContinuousClock.now < firstPicture {
                _ = pw_thread_loop_timed_wait(self.loop, 1)
            }
        }
    }

    // MARK: Callbacks (on PipeWire's thread, its lock held)

    private func formatChanged(_ param: UnsafePointer<spa_pod>?) {
        defer { pw_thread_loop_signal(self.loop, false) }
        guard let param, let stream = self.stream else {
            self.format = nil
            return
        }
        var info = spa_video_info_raw()
        guard cpw_parse_video_format(param, &info) >= 0,
            let order = Self.formats.first(where: { $0.format == info.format })?.order,
            info.size.width > 0, info.size.height > 0
        else {
            self.failure = CaptureError(.unsupportedPixelFormat, "the PipeWire stream's format is not 32-bit raw video")
            return
        }
        let dmabuf = cpw_video_info_has_modifier(&info)
        self.format = (Int(info.size.width), Int(info.size.height), order, dmabuf)
        // DMA-BUFs this grabber maps, or shared memory PipeWire maps; the header and crop metadata.
        let dataTypes =
            dmabuf
            ? Int32(1 << SPA_DATA_DmaBuf.rawValue) : Int32(1 << SPA_DATA_MemPtr.rawValue | 1 << SPA_DATA_MemFd.rawValue)
        _ = Self.withPOD { builder in
            [
                cpw_buffers(&builder, 8, 2, 16, 0, 0, dataTypes),
                cpw_meta(&builder, SPA_META_Header.rawValue, Int32(MemoryLayout<spa_meta_header>.size)),
                cpw_meta(&builder, SPA_META_VideoCrop.rawValue, Int32(MemoryLayout<spa_meta_region>.size)),
            ]
        } apply: { params in
            pw_stream_update_params(stream, params.baseAddress, UInt32(params.count))
        }
    }

    private func process() {
        guard let stream = self.stream else { return }
        var latest: UnsafeMutablePointer<pw_buffer>?
        while let buffer = pw_stream_dequeue_buffer(stream) {
            if let older = latest { pw_stream_queue_buffer(stream, older) }
            latest = buffer
        }
        guard let latest else { return }
        // Compositors send empty buffers when only the cursor moved; those keep the last picture.
        if let plane = latest.pointee.buffer?.pointee.datas, let chunk = plane.pointee.chunk,
            chunk.pointee.size > 0, chunk.pointee.flags & Self.chunkCorrupted == 0, plane.pointee.data != nil
        {
            if let older = self.newest { pw_stream_queue_buffer(stream, older) }
            self.newest = latest
            self.fresh = true
            pw_thread_loop_signal(self.loop, false)
        } else {
            pw_stream_queue_buffer(stream, latest)
        }
    }

    /// Maps a DMA-BUF as it arrives (PipeWire maps only shared memory).
    private func addBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>?) {
        guard let buffer, let plane = buffer.pointee.buffer?.pointee.datas,
            plane.pointee.type == SPA_DATA_DmaBuf.rawValue, plane.pointee.fd >= 0
        else { return }
        let length = Int(plane.pointee.mapoffset) + Int(plane.pointee.maxsize)
        let base = mmap(nil, length, PROT_READ, MAP_SHARED, Int32(truncatingIfNeeded: plane.pointee.fd), 0)
        guard let base, base != MAP_FAILED else {
            self.end(CaptureError(.captureFailed, "cannot map a DMA-BUF: \(String(cString: strerror(errno)))"))
            return
        }
        self.mappings[buffer] = (base, length)
        plane.pointee.data = base + Int(plane.pointee.mapoffset)
    }

    private func removeBuffer(_ buffer: UnsafeMutablePointer<pw_buffer>?) {
        if buffer == self.newest { self.newest = nil }
        guard let buffer, let mapping = self.mappings.removeValue(forKey: buffer) else { return }
        munmap(mapping.base, mapping.length)
        buffer.pointee.buffer?.pointee.datas?.pointee.data = nil
    }

    private func end(_ error: CaptureError) {
        if self.failure == nil { self.failure = error }
        pw_thread_loop_signal(self.loop, false)
    }

    private static func grabber(_ data: UnsafeMutableRawPointer?) -> PipeWireGrabber? {
        data.map { Unmanaged<PipeWireGrabber>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func makeStreamEvents() -> pw_stream_events {
        var events = pw_stream_events()
        events.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.state_changed = { data, _, state, message in
            guard state == PW_STREAM_STATE_ERROR || state == PW_STREAM_STATE_UNCONNECTED else { return }
            let reason = message.map { String(cString: $0) } ?? "disconnected"
            PipeWireGrabber.grabber(data)?.end(CaptureError(.sourceVanished, "the PipeWire stream ended: \(reason)"))
        }
        events.param_changed = { data, id, param in
            guard id == SPA_PARAM_Format.rawValue else { return }
            PipeWireGrabber.grabber(data)?.formatChanged(param)
        }
        events.add_buffer = { data, buffer in PipeWireGrabber.grabber(data)?.addBuffer(buffer) }
        events.remove_buffer = { data, buffer in PipeWireGrabber.grabber(data)?.removeBuffer(buffer) }
        events.process = { data in PipeWireGrabber.grabber(data)?.process() }
        return events
    }

    private static func makeRegistryEvents() -> pw_registry_events {
        var events = pw_registry_events()
        events.version = UInt32(PW_VERSION_REGISTRY_EVENTS)
        events.global_remove = { data, id in
            guard let grabber = PipeWireGrabber.grabber(data), id == grabber.nodeID else { return }
            grabber.end(CaptureError(.sourceVanished, "the screen-cast stream (PipeWire node \(id)) went away"))
        }
        return events
    }

    private static func makeCoreEvents() -> pw_core_events {
        var events = pw_core_events()
        events.version = UInt32(PW_VERSION_CORE_EVENTS)
        events.error = { data, id, _, result, message in
            guard id == PipeWireGrabber.coreID else { return }
            let reason = message.map { String(cString: $0) } ?? String(cString: strerror(-result))
            PipeWireGrabber.grabber(data)?.end(
                CaptureError(.sourceVanished, "the PipeWire connection broke: \(reason)"))
        }
        return events
    }

    /// Builds params with a POD builder over 1 KiB of stack-like scratch and
    /// hands them to `apply` while that memory lives.
    private static func withPOD(
        _ build: (inout spa_pod_builder) -> [UnsafePointer<spa_pod>?],
        apply: (UnsafeMutableBufferPointer<UnsafePointer<spa_pod>?>) -> Int32
    ) -> Int32 {
        withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 8) { memory in
            var builder = cpw_builder(memory.baseAddress, UInt32(memory.count))
            var params = build(&builder)
            return params.withUnsafeMutableBufferPointer { apply($0) }
        }
    }
}
