import CXCB
import CastTestSupport
import Foundation

/// An X client that draws known pictures: a window of its own, filled
/// with 32-bit pixels through PutImage, moved around, and the pointer
/// moved: what a desktop does to the screen a capture reads.
//
// @unchecked Sendable: an XCB connection may be used from any thread (libxcb
// locks it internally), and the other stored properties are set in `init`
// and never changed (`width` and `height` are `let`).
public final class XPainter: @unchecked Sendable {
    let connection: OpaquePointer
    let root: xcb_window_t
    /// The window's X id (what `--capture window` and `CaptureSource.window` take).
    public let window: UInt32
    private let gc: xcb_gcontext_t
    private let pixmap: xcb_pixmap_t
    /// The window's width, pixels.
    public let width: Int
    /// The window's height, pixels.
    public let height: Int

    /// Connects to `display` and maps a window at `x, y` of `width × height`;
    /// with a `title`, a window the window manager manages (one a desktop's
    /// portal offers to share), without one, a window no window manager
    /// touches (override-redirect), exactly where it is put.
    public init(display: String, x: Int, y: Int, width: Int, height: Int, title: String? = nil) throws {
        guard let connection = xcb_connect(display, nil), xcb_connection_has_error(connection) == 0 else {
            throw TestDaemonError.requestFailed("connect to \(display)")
        }
        self.connection = connection
        let screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data.pointee
        self.root = screen.root
        self.window = xcb_generate_id(connection)
        self.gc = xcb_generate_id(connection)
        self.pixmap = xcb_generate_id(connection)
        self.width = width
        self.height = height
        var values: [UInt32] = [screen.black_pixel, title == nil ? 1 : 0]
        xcb_create_window(
            connection, UInt8(XCB_COPY_FROM_PARENT), self.window, self.root, Int16(x), Int16(y), UInt16(width),
            UInt16(height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual,
            XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue, &values)
        xcb_create_gc(connection, self.gc, self.window, 0, nil)
        xcb_create_pixmap(connection, 24, self.pixmap, self.window, UInt16(width), UInt16(height))
        if let title {
            let bytes = Array(title.utf8)
            xcb_change_property(
                connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), self.window, XCB_ATOM_WM_NAME.rawValue,
                XCB_ATOM_STRING.rawValue, 8, UInt32(bytes.count), bytes)
        }
        xcb_map_window(connection, self.window)
        self.sync()
    }

    deinit {
        xcb_disconnect(self.connection)
    }

    /// Fills the window with `pixels` (BGRx, `width × height`), then waits
    /// until the server has drawn them. The picture goes to a pixmap first
    /// and onto the window in one request, so no capture sees half of it.
    public func draw(_ pixels: [UInt8]) {
        let rowBytes = self.width * 4
        let rowsPerRequest = max(1, 60_000 / rowBytes)
        pixels.withUnsafeBytes { bytes in
            var row = 0
            while row < self.height {
                let rows = min(rowsPerRequest, self.height - row)
                xcb_put_image(
                    self.connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), self.pixmap, self.gc,
                    UInt16(self.width), UInt16(rows), 0, Int16(row), 0, 24, UInt32(rows * rowBytes),
                    bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * rowBytes)
                row += rows
            }
        }
        xcb_copy_area(
            self.connection, self.pixmap, self.window, self.gc, 0, 0, 0, 0, UInt16(self.width), UInt16(self.height))
        self.sync()
    }

    /// Moves (and optionally resizes) the window.
    public func move(x: Int, y: Int) {
        var values: [UInt32] = [UInt32(bitPattern: Int32(x)), UInt32(bitPattern: Int32(y))]
        xcb_configure_window(
            self.connection, self.window, UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue), &values)
        self.sync()
    }

    /// Moves the pointer to `x, y` on the screen.
    public func warpPointer(x: Int, y: Int) {
        xcb_warp_pointer(self.connection, xcb_window_t(XCB_NONE), self.root, 0, 0, 0, 0, Int16(x), Int16(y))
        self.sync()
    }

    /// Unmaps and destroys the window.
    public func destroyWindow() {
        xcb_destroy_window(self.connection, self.window)
        self.sync()
    }

    /// Waits until the server has handled every request sent.
    public func sync() {
        free(xcb_get_input_focus_reply(self.connection, xcb_get_input_focus(self.connection), nil))
    }
}
