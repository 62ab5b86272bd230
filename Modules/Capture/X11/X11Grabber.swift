import CXCB
import CYUV

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Captures a ``CaptureSource`` of an X screen: the pixels through MIT-SHM
/// (the server writes them into memory shared with us, nothing crosses the
/// socket), the cursor from XFixes blended on top, and DAMAGE telling
/// whether anything changed since the last capture.
///
/// Falls back to a plain `GetImage` when the server cannot share memory
/// with this process (another machine, another IPC namespace).
//
// @unchecked Sendable: made on the app's thread, then used only by the
// capture thread of one `ScreenCapture`; the hand-over happens through
// `Thread`'s start, which orders the writes before it.
final class X11Grabber: FrameGrabber, @unchecked Sendable {
    private let display: X11Connection
    private let source: CaptureSource
    private let showsCursor: Bool
    private let damage: xcb_damage_damage_t
    private let damageEvent: UInt8
    /// For ``CaptureSource/output(_:)``: the monitor's name atom, found once.
    private let outputAtom: xcb_atom_t?
    private var shared: SharedSegment?
    private var fallbackReply: UnsafeMutablePointer<xcb_get_image_reply_t>?
    private var damaged = true
    private var cursor = CursorState()

    /// Connects and checks that `source` exists.
    init(display name: String?, source: CaptureSource, showsCursor: Bool) throws(CaptureError) {
        let display = try X11Connection(display: name)
        let connection = display.connection
        guard cxcb_damage_extension(connection)?.pointee.present == 1,
            let damageVersion = xcb_damage_query_version_reply(
                connection, xcb_damage_query_version(connection, 1, 1), nil)
        else {
            throw CaptureError(.extensionMissing, "the X server has no DAMAGE extension")
        }
        free(damageVersion)
        guard cxcb_xfixes_extension(connection)?.pointee.present == 1,
            let fixesVersion = xcb_xfixes_query_version_reply(
                connection, xcb_xfixes_query_version(connection, 4, 0), nil)
        else {
            throw CaptureError(.extensionMissing, "the X server has no XFixes extension")
        }
        free(fixesVersion)
        // A window is its own picture, on Xwayland too; the root is not.
        let readsTheRoot: Bool = if case .window = source { false } else { true }
        if readsTheRoot, display.isXwayland {
            throw CaptureError(
                .waylandDesktop,
                "\(name ?? "this display") is Xwayland: it shows only X windows over black, not the Wayland desktop; "
                    + "share the screen through the desktop's portal instead (cast screen --capture portal)")
        }
        if case .output(let name) = source {
            guard let atom = try display.monitorAtom(name) else { throw Self.noMonitor(name, on: display) }
            self.outputAtom = atom
        } else {
            self.outputAtom = nil
        }
        self.display = display
        self.source = source
        self.showsCursor = showsCursor
        self.damageEvent = (cxcb_damage_extension(connection)?.pointee.first_event ?? 0) &+ UInt8(XCB_DAMAGE_NOTIFY)
        self.damage = xcb_generate_id(connection)
        xcb_damage_create(connection, self.damage, display.root, UInt8(XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY.rawValue))
        self.shared = SharedSegment(connection: connection, bytes: display.width * display.height * 4)
        _ = try self.region()
    }

    deinit {
        if let reply = self.fallbackReply { free(reply) }
        self.cursor.release()
        if let shared = self.shared { shared.detach(self.display.connection) }
        xcb_damage_destroy(self.display.connection, self.damage)
        xcb_flush(self.display.connection)
    }

    /// The size of the source now, pixels.
    var size: (width: Int, height: Int) {
        get throws(CaptureError) {
            let region = try self.region()
            return (region.width, region.height)
        }
    }

    /// Whether anything on screen or the cursor changed since the last
    /// capture; reads the pending DAMAGE events.
    func hasChanged() throws(CaptureError) -> Bool {
        while let event = xcb_poll_for_event(self.display.connection) {
            if event.pointee.response_type & 0x7f == self.damageEvent { self.damaged = true }
            free(event)
        }
        if self.display.isBroken { throw CaptureError(.sourceVanished, "the X connection broke") }
        if self.showsCursor, self.cursor.refresh(self.display.connection) { return true }
        return self.damaged
    }

    func withCurrentImage(_ body: (CapturedImage) -> Void) throws(CaptureError) -> Bool {
        body(try self.grab())
        return true
    }

    /// Captures the source as it is now, cursor included; valid until the next call.
    func grab() throws(CaptureError) -> CapturedImage {
        let region = try self.region()
        let connection = self.display.connection
        // Re-armed before reading, so a change during the read is seen next time.
        xcb_damage_subtract(connection, self.damage, xcb_xfixes_region_t(XCB_NONE), xcb_xfixes_region_t(XCB_NONE))
        self.damaged = false
        guard region.width > 0, region.height > 0 else {
            return CapturedImage(base: nil, width: 0, height: 0, bytesPerRow: 0, order: self.display.order)
        }
        let image = try self.read(region)
        // XFixes gives the cursor in BGRA order; blended only onto pictures in that order.
        if self.showsCursor, image.order == .bgrx { self.cursor.draw(onto: image, at: (region.x, region.y)) }
        return image
    }

    // MARK: Region

    private struct Region {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// Where the source is on the screen now, clipped to the screen.
    private func region() throws(CaptureError) -> Region {
        let screen = Region(x: 0, y: 0, width: self.display.width, height: self.display.height)
        switch self.source {
        case .screen:
            return screen
        case .portal, .virtualMonitor:
            // Not on X11: ScreenCapture reads them through PipeWire; refused when the grabber is made.
            throw CaptureError(.invalidConfiguration, "\(self.source) is not an X11 source")
        case .output(let name):
            // One GetMonitors a picture, matched by the atom found at the start.
            guard let atom = self.outputAtom, let monitor = try self.display.monitor(named: atom) else {
                throw Self.noMonitor(name, on: self.display)
            }
            return Self.clip(
                Region(x: monitor.x, y: monitor.y, width: monitor.width, height: monitor.height), to: screen)
        case .window(let window):
            let connection = self.display.connection
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            let geometry = xcb_get_geometry_reply(connection, xcb_get_geometry(connection, window), &error)
            let position = xcb_translate_coordinates_reply(
                connection, xcb_translate_coordinates(connection, window, self.display.root, 0, 0), nil)
            defer {
                free(geometry)
                free(position)
            }
            _ = X11Connection.errorCode(error)
            guard let geometry, let position else {
                if self.display.isBroken { throw CaptureError(.sourceVanished, "the X connection broke") }
                throw CaptureError(.sourceNotFound, "there is no \(self.source) on this display")
            }
            let window = Region(
                x: Int(position.pointee.dst_x), y: Int(position.pointee.dst_y), width: Int(geometry.pointee.width),
                height: Int(geometry.pointee.height))
            return Self.clip(window, to: screen)
        }
    }

    /// "No such monitor", naming the ones there are.
    private static func noMonitor(_ name: String, on display: X11Connection) -> CaptureError {
        let names = (try? display.monitors().map(\.name).joined(separator: ", ")) ?? ""
        return CaptureError(.sourceNotFound, "no monitor named \(name) (the screen has: \(names))")
    }

    private static func clip(_ region: Region, to screen: Region) -> Region {
        let left = max(region.x, screen.x)
        let top = max(region.y, screen.y)
        let right = min(region.x + region.width, screen.x + screen.width)
        let bottom = min(region.y + region.height, screen.y + screen.height)
        return Region(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    // MARK: Pixels

    private func read(_ region: Region) throws(CaptureError) -> CapturedImage {
        let connection = self.display.connection
        if let shared = self.shared {
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            let reply = xcb_shm_get_image_reply(
                connection,
                xcb_shm_get_image(
                    connection, self.display.root, Int16(region.x), Int16(region.y), UInt16(region.width),
                    UInt16(region.height), ~0, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), shared.segment, 0),
                &error)
            let code = X11Connection.errorCode(error)
            if let reply {
                free(reply)
                return CapturedImage(
                    base: shared.address, width: region.width, height: region.height, bytesPerRow: region.width * 4,
                    order: self.display.order)
            }
            if self.display.isBroken { throw CaptureError(.sourceVanished, "the X connection broke") }
            throw CaptureError(.captureFailed, "MIT-SHM GetImage failed (X error \(code ?? 0))")
        }
        if let previous = self.fallbackReply { free(previous) }
        self.fallbackReply = nil
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        guard
            let reply = xcb_get_image_reply(
                connection,
                xcb_get_image(
                    connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), self.display.root, Int16(region.x),
                    Int16(region.y), UInt16(region.width), UInt16(region.height), ~0),
                &error),
            let data = xcb_get_image_data(reply),
            Int(xcb_get_image_data_length(reply)) >= region.width * region.height * 4
        else {
            let code = X11Connection.errorCode(error)
            if self.display.isBroken { throw CaptureError(.sourceVanished, "the X connection broke") }
            throw CaptureError(.captureFailed, "GetImage failed (X error \(code ?? 0))")
        }
        self.fallbackReply = reply
        return CapturedImage(
            base: UnsafeMutableRawPointer(data), width: region.width, height: region.height,
            bytesPerRow: region.width * 4, order: self.display.order)
    }
}

/// A System V shared-memory segment attached to both us and the X server.
private struct SharedSegment {
    let segment: xcb_shm_seg_t
    let address: UnsafeMutableRawPointer

    /// Creates and attaches a segment of `bytes`; `nil` when the server
    /// has no MIT-SHM or cannot attach our memory.
    init?(connection: OpaquePointer, bytes: Int) {
        guard cxcb_shm_extension(connection)?.pointee.present == 1,
            let version = xcb_shm_query_version_reply(connection, xcb_shm_query_version(connection), nil)
        else { return nil }
        free(version)
        let id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0o600)
        guard id >= 0 else { return nil }
        // Marked for removal at once: it goes away when both sides detach,
        // even if this process dies.
        defer { shmctl(id, IPC_RMID, nil) }
        guard let address = shmat(id, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        let segment = xcb_generate_id(connection)
        let attached = xcb_shm_attach_checked(connection, segment, UInt32(id), 0)
        if let error = xcb_request_check(connection, attached) {
            free(error)
            shmdt(address)
            return nil
        }
        self.segment = segment
        self.address = address
    }

    func detach(_ connection: OpaquePointer) {
        xcb_shm_detach(connection, self.segment)
        shmdt(self.address)
    }
}

/// The cursor as XFixes last reported it: its picture (premultiplied ARGB),
/// hot spot and position, refreshed once per capture tick.
private struct CursorState {
    private var reply: UnsafeMutablePointer<xcb_xfixes_get_cursor_image_reply_t>?
    private var serial: UInt32 = 0
    private var position: (x: Int, y: Int) = (-1, -1)

    /// Asks the server for the cursor; whether it moved or changed shape.
    mutating func refresh(_ connection: OpaquePointer) -> Bool {
        guard
            let reply = xcb_xfixes_get_cursor_image_reply(
                connection, xcb_xfixes_get_cursor_image(connection), nil)
        else { return false }
        let changed =
            reply.pointee.cursor_serial != self.serial || Int(reply.pointee.x) != self.position.x
            || Int(reply.pointee.y) != self.position.y
        if let previous = self.reply { free(previous) }
        self.reply = reply
        self.serial = reply.pointee.cursor_serial
        self.position = (Int(reply.pointee.x), Int(reply.pointee.y))
        return changed
    }

    /// Blends the cursor onto `image`, whose top left is at `origin` on the screen.
    func draw(onto image: CapturedImage, at origin: (x: Int, y: Int)) {
        guard let reply = self.reply, let base = image.base,
            let pixels = xcb_xfixes_get_cursor_image_cursor_image(reply)
        else { return }
        let width = Int(reply.pointee.width)
        let height = Int(reply.pointee.height)
        let left = Int(reply.pointee.x) - Int(reply.pointee.xhot) - origin.x
        let top = Int(reply.pointee.y) - Int(reply.pointee.yhot) - origin.y
        let clipLeft = max(0, -left)
        let clipTop = max(0, -top)
        let visibleWidth = min(width, image.width - left) - clipLeft
        let visibleHeight = min(height, image.height - top) - clipTop
        guard visibleWidth > 0, visibleHeight > 0 else { return }
        let cursor = UnsafeRawPointer(pixels + clipTop * width + clipLeft).assumingMemoryBound(to: UInt8.self)
        let target = (base + (top + clipTop) * image.bytesPerRow + (left + clipLeft) * 4)
            .assumingMemoryBound(to: UInt8.self)
        // libyuv's ARGBBlend puts its first, premultiplied picture over the second.
        _ = ARGBBlend(
            cursor, Int32(width * 4), target, Int32(image.bytesPerRow), target, Int32(image.bytesPerRow),
            Int32(visibleWidth), Int32(visibleHeight))
    }

    func release() {
        if let reply = self.reply { free(reply) }
    }
}
