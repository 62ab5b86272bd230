import CPipeWire
import CastCapture
import Foundation
import NIOConcurrencyHelpers

/// A PipeWire video node that shows the pictures a test gives it — what a
/// compositor's screen-cast stream is to the portal: a driving
/// `Stream/Output/Video` node of fixed-size BGRx pictures in shared memory
/// — or, with `dmabuf`, in buffers it allocates itself and announces as
/// linear DMA-BUFs (a GPU compositor's kind; here the memory behind them
/// is a file, which maps the same) — sending the current picture when the
/// stream starts and each new one.
//
// @unchecked Sendable: mutable state is guarded by the thread loop's lock
// (PipeWire's callbacks hold it; the test's calls take it).
final class PipeWireVideoSource: @unchecked Sendable {
    let width: Int
    let height: Int
    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let core: OpaquePointer
    private var stream: OpaquePointer?
    private let hook: UnsafeMutablePointer<spa_hook>
    private let events: UnsafeMutablePointer<pw_stream_events>
    private var picture: [UInt8]
    private let dmabuf: Bool
    /// The buffers allocated for `dmabuf`: their mappings and descriptors.
    private var allocations: [UnsafeMutablePointer<pw_buffer>: (base: UnsafeMutableRawPointer, fd: Int32)] = [:]

    /// Connects to the PipeWire daemon at `socket` and publishes the node.
    init(socket path: String, width: Int, height: Int, dmabuf: Bool = false) throws {
        pw_init(nil, nil)
        self.width = width
        self.height = height
        self.dmabuf = dmabuf
        self.picture = [UInt8](repeating: 0, count: width * height * 4)
        let descriptor = try Self.connectedSocket(path)
        self.loop = pw_thread_loop_new("test.pipewire.source", nil)
        self.context = pw_context_new(pw_thread_loop_get_loop(self.loop), nil, 0)
        guard let core = pw_context_connect_fd(self.context, descriptor, nil, 0) else {
            throw PipeWireTestError("cannot connect a PipeWire core")
        }
        self.core = core
        self.hook = .allocate(capacity: 1)
        self.hook.initialize(to: spa_hook())
        self.events = .allocate(capacity: 1)
        var events = pw_stream_events()
        events.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.param_changed = { data, id, param in
            guard id == SPA_PARAM_Format.rawValue, param != nil, let data else { return }
            Unmanaged<PipeWireVideoSource>.fromOpaque(data).takeUnretainedValue().negotiated()
        }
        // As compositors do, the current picture goes out as soon as the stream runs.
        events.state_changed = { data, _, state, _ in
            guard state == PW_STREAM_STATE_STREAMING, let data else { return }
            let source = Unmanaged<PipeWireVideoSource>.fromOpaque(data).takeUnretainedValue()
            source.send()
        }
        events.add_buffer = { data, buffer in
            guard let data, let buffer else { return }
            Unmanaged<PipeWireVideoSource>.fromOpaque(data).takeUnretainedValue().allocate(buffer)
        }
        events.remove_buffer = { data, buffer in
            guard let data, let buffer else { return }
            Unmanaged<PipeWireVideoSource>.fromOpaque(data).takeUnretainedValue().release(buffer)
        }
        self.events.initialize(to: events)
        let properties = pw_properties_new_string("")
        for (key, value) in [
            ("media.class", "Stream/Output/Video"), ("media.type", "Video"), ("media.category", "Source"),
            ("media.role", "Screen"),
        ] {
            pw_properties_set(properties, key, value)
        }
        pw_thread_loop_lock(self.loop)
        defer { pw_thread_loop_unlock(self.loop) }
        pw_thread_loop_start(self.loop)
        self.stream = pw_stream_new(core, "test-screen", properties)
        pw_stream_add_listener(self.stream, self.hook, self.events, Unmanaged.passUnretained(self).toOpaque())
        var buffer = [UInt8](repeating: 0, count: 1024)
        let result = buffer.withUnsafeMutableBytes { memory in
            var builder = cpw_builder(memory.baseAddress, UInt32(memory.count))
            var format = [SPA_VIDEO_FORMAT_BGRx.rawValue]
            let size = spa_rectangle(width: UInt32(width), height: UInt32(height))
            let rate = spa_fraction(num: 30, denom: 1)
            let modifier = dmabuf ? Int64(CPW_MODIFIER_LINEAR) : -1
            var params: [UnsafePointer<spa_pod>?] = [
                cpw_video_format(&builder, &format, 1, size, size, size, rate, rate, rate, modifier)
            ]
            // DMA-BUFs are allocated here (add_buffer); shared memory by PipeWire.
            let allocation = dmabuf ? PW_STREAM_FLAG_ALLOC_BUFFERS.rawValue : PW_STREAM_FLAG_MAP_BUFFERS.rawValue
            return pw_stream_connect(
                self.stream, SPA_DIRECTION_OUTPUT, UInt32.max,
                pw_stream_flags(PW_STREAM_FLAG_DRIVER.rawValue | allocation), &params, 1)
        }
        guard result >= 0 else { throw PipeWireTestError("cannot connect the source stream (\(result))") }
    }

    deinit {
        self.stop()
        pw_thread_loop_stop(self.loop)
        pw_core_disconnect(self.core)
        pw_context_destroy(self.context)
        pw_thread_loop_destroy(self.loop)
        self.hook.deallocate()
        self.events.deallocate()
    }

    /// The node's id once PipeWire assigned it (within `timeout`).
    func nodeID(within timeout: Duration = .seconds(5)) async throws -> UInt32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            pw_thread_loop_lock(self.loop)
            let id = self.stream.map { pw_stream_get_node_id($0) } ?? UInt32.max
            pw_thread_loop_unlock(self.loop)
            if id != UInt32.max { return id }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw PipeWireTestError("the source got no node id")
    }

    /// Shows `pixels` (BGRx, this source's size) as the next picture.
    func show(_ pixels: [UInt8]) {
        pw_thread_loop_lock(self.loop)
        defer { pw_thread_loop_unlock(self.loop) }
        self.picture = pixels
        self.send()
    }

    /// Removes the node, as a compositor does when sharing stops.
    func stop() {
        pw_thread_loop_lock(self.loop)
        defer { pw_thread_loop_unlock(self.loop) }
        guard let stream = self.stream else { return }
        self.stream = nil
        pw_stream_disconnect(stream)
        pw_stream_destroy(stream)
    }

    private func negotiated() {
        var buffer = [UInt8](repeating: 0, count: 1024)
        buffer.withUnsafeMutableBytes { memory in
            var builder = cpw_builder(memory.baseAddress, UInt32(memory.count))
            let dataTypes =
                self.dmabuf
                ? Int32(1 << SPA_DATA_DmaBuf.rawValue)
                : Int32(1 << SPA_DATA_MemFd.rawValue | 1 << SPA_DATA_MemPtr.rawValue)
            var params: [UnsafePointer<spa_pod>?] = [
                cpw_buffers(&builder, 4, 2, 8, Int32(self.width * self.height * 4), Int32(self.width * 4), dataTypes)
            ]
            _ = pw_stream_update_params(self.stream, &params, 1)
        }
    }

    /// A buffer's memory for `dmabuf`: a file, unlinked at once, mapped to write into.
    private func allocate(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard self.dmabuf, let plane = buffer.pointee.buffer.pointee.datas else { return }
        let size = self.width * self.height * 4
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dmabuf-\(UUID().uuidString)").path
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        unlink(path)
        guard fd >= 0, ftruncate(fd, off_t(size)) == 0,
            let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED
        else { return }
        self.allocations[buffer] = (base, fd)
        plane.pointee.type = SPA_DATA_DmaBuf.rawValue
        plane.pointee.flags = UInt32(SPA_DATA_FLAG_READWRITE)
        plane.pointee.fd = Int64(fd)
        plane.pointee.mapoffset = 0
        plane.pointee.maxsize = UInt32(size)
        plane.pointee.data = base
    }

    private func release(_ buffer: UnsafeMutablePointer<pw_buffer>) {
        guard let allocation = self.allocations.removeValue(forKey: buffer) else { return }
        munmap(allocation.base, self.width * self.height * 4)
        close(allocation.fd)
    }

    /// Fills a buffer with the current picture, queues it and runs the
    /// graph — as mutter does on damage, so the picture goes out in this
    /// cycle (filling in the process callback sends it a cycle late).
    private func send() {
        guard let stream = self.stream, let buffer = pw_stream_dequeue_buffer(stream) else { return }
        defer {
            pw_stream_queue_buffer(stream, buffer)
            pw_stream_trigger_process(stream)
        }
        guard let plane = buffer.pointee.buffer.pointee.datas, let memory = plane.pointee.data,
            Int(plane.pointee.maxsize) >= self.picture.count
        else { return }
        self.picture.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        plane.pointee.chunk.pointee.offset = 0
        plane.pointee.chunk.pointee.size = UInt32(self.picture.count)
        plane.pointee.chunk.pointee.stride = Int32(self.width * 4)
    }
}

extension PipeWireVideoSource {
    /// A Unix socket connected to `path`, a PipeWire daemon's.
    static func connectedSocket(_ path: String) throws -> Int32 {
        switch UnixSocket.connect(to: path) {
        case .success(let descriptor): return descriptor
        case .failure(let failure): throw PipeWireTestError("cannot connect to \(path): \(failure)")
        }
    }
}

struct PipeWireTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
