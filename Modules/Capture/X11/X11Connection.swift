import CXCB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A connection to an X server and the facts capture needs about its
/// screen: the root window, its size, and how its pixels lie in memory.
/// Used by one thread at a time (see ``X11Grabber``).
final class X11Connection {
    let connection: OpaquePointer
    let root: xcb_window_t
    let width: Int
    let height: Int
    let order: CapturedImage.ChannelOrder

    /// Connects to `display` (`nil`: the `DISPLAY` environment variable).
    init(display: String?) throws(CaptureError) {
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(display, &screenNumber) else {
            throw CaptureError(.displayUnavailable, "cannot connect to X display \(display ?? "$DISPLAY")")
        }
        guard xcb_connection_has_error(connection) == 0 else {
            xcb_disconnect(connection)
            throw CaptureError(
                .displayUnavailable,
                "cannot connect to X display \(display ?? Self.environmentDisplay)\(Self.waylandHint)")
        }
        self.connection = connection
        guard let setup = xcb_get_setup(connection) else {
            xcb_disconnect(connection)
            throw CaptureError(.displayUnavailable, "the X server sent no setup")
        }
        var screens = xcb_setup_roots_iterator(setup)
        for _ in 0..<max(0, Int(screenNumber)) where screens.rem > 0 { xcb_screen_next(&screens) }
        guard screens.rem > 0, let screenPointer = screens.data else {
            xcb_disconnect(connection)
            throw CaptureError(.displayUnavailable, "X display has no screen \(screenNumber)")
        }
        let screen = screenPointer.pointee
        self.root = screen.root
        self.width = Int(screen.width_in_pixels)
        self.height = Int(screen.height_in_pixels)
        do throws(CaptureError) {
            self.order = try Self.channelOrder(setup: setup, screen: screenPointer)
        } catch {
            xcb_disconnect(connection)
            throw error
        }
    }

    deinit {
        xcb_disconnect(self.connection)
    }

    /// Whether the connection broke (the server went away or a protocol error closed it).
    var isBroken: Bool { xcb_connection_has_error(self.connection) != 0 }

    /// Whether the server is Xwayland, which names its RandR outputs
    /// `XWAYLAND0`, `XWAYLAND1`… (seen with sway 1.7 and Xwayland 22.1.9:
    /// `xrandr --listmonitors` lists `XWAYLAND0` alone; it has no extension of its own to ask).
    var isXwayland: Bool {
        (try? self.monitors())?.contains { $0.name.hasPrefix("XWAYLAND") } ?? false
    }

    /// What to do instead, in a Wayland session: its screen is not an X display.
    private static var waylandHint: String {
        guard getenv("WAYLAND_DISPLAY") != nil else { return "" }
        return "; this is a Wayland session: share the screen through the desktop's portal "
            + "(cast screen --capture portal)"
    }

    private static var environmentDisplay: String {
        getenv("DISPLAY").map { String(cString: $0) } ?? "(DISPLAY is unset)"
    }

    /// The memory order of the root visual's pixels: 32 bits each,
    /// least significant byte first, 8 bits per colour.
    /// `screen` points into the setup: its depths and visuals follow it there.
    private static func channelOrder(
        setup: UnsafePointer<xcb_setup_t>, screen: UnsafeMutablePointer<xcb_screen_t>
    ) throws(CaptureError) -> CapturedImage.ChannelOrder {
        let depth = screen.pointee.root_depth
        var bitsPerPixel: UInt8 = 0
        if let formats = xcb_setup_pixmap_formats(setup) {
            for index in 0..<Int(xcb_setup_pixmap_formats_length(setup)) where formats[index].depth == depth {
                bitsPerPixel = formats[index].bits_per_pixel
            }
        }
        guard bitsPerPixel == 32, depth >= 24,
            setup.pointee.image_byte_order == UInt8(XCB_IMAGE_ORDER_LSB_FIRST.rawValue)
        else {
            throw CaptureError(
                .unsupportedPixelFormat,
                "the screen has \(depth)-bit colour in \(bitsPerPixel)-bit pixels; capture needs 24-bit colour in 32-bit pixels"
            )
        }
        var depths = xcb_screen_allowed_depths_iterator(screen)
        while depths.rem > 0 {
            var visuals = xcb_depth_visuals_iterator(depths.data)
            while visuals.rem > 0 {
                if let visual = visuals.data?.pointee, visual.visual_id == screen.pointee.root_visual {
                    switch (visual.red_mask, visual.green_mask, visual.blue_mask) {
                    case (0xff_0000, 0xff00, 0xff): return .bgrx
                    case (0xff, 0xff00, 0xff_0000): return .rgbx
                    default:
                        throw CaptureError(
                            .unsupportedPixelFormat,
                            "the root visual's colour masks are not 8 bits per channel")
                    }
                }
                xcb_visualtype_next(&visuals)
            }
            xcb_depth_next(&depths)
        }
        throw CaptureError(.unsupportedPixelFormat, "the root visual is not listed by the X server")
    }

    /// A reply's error code (and frees the error), or `nil` when there was none.
    static func errorCode(_ error: UnsafeMutablePointer<xcb_generic_error_t>?) -> UInt8? {
        guard let error else { return nil }
        defer { free(error) }
        return error.pointee.error_code
    }
}
