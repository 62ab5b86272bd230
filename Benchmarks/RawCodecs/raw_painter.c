#include "raw_painter.h"

#include <stdlib.h>
#include <xcb/xcb.h>

struct raw_painter {
    xcb_connection_t *connection;
    xcb_window_t root;
    xcb_gcontext_t gc;
    int width, height;
};

raw_painter *raw_painter_create(const char *display) {
    raw_painter *painter = calloc(1, sizeof *painter);
    if (!painter) return NULL;
    painter->connection = xcb_connect(display, NULL);
    if (xcb_connection_has_error(painter->connection)) {
        raw_painter_destroy(painter);
        return NULL;
    }
    xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(painter->connection)).data;
    painter->root = screen->root;
    painter->width = screen->width_in_pixels;
    painter->height = screen->height_in_pixels;
    painter->gc = xcb_generate_id(painter->connection);
    uint32_t foreground = 0;
    xcb_create_gc(painter->connection, painter->gc, painter->root, XCB_GC_FOREGROUND, &foreground);
    return painter;
}

void raw_painter_draw(raw_painter *painter, int number) {
    int x = (number * 8) % (painter->width - 640), y = (number * 4) % (painter->height - 360);
    uint32_t black = 0, colour = (uint32_t)(number * 0x1F3D5B) & 0xFFFFFF;
    xcb_rectangle_t trail = {(int16_t)(x > 8 ? x - 8 : 0), (int16_t)(y > 4 ? y - 4 : 0), 656, 368};
    xcb_change_gc(painter->connection, painter->gc, XCB_GC_FOREGROUND, &black);
    xcb_poly_fill_rectangle(painter->connection, painter->root, painter->gc, 1, &trail);
    xcb_rectangle_t block = {(int16_t)x, (int16_t)y, 640, 360};
    xcb_change_gc(painter->connection, painter->gc, XCB_GC_FOREGROUND, &colour);
    xcb_poly_fill_rectangle(painter->connection, painter->root, painter->gc, 1, &block);
    xcb_flush(painter->connection);
}

void raw_painter_destroy(raw_painter *painter) {
    if (!painter) return;
    if (painter->connection) xcb_disconnect(painter->connection);
    free(painter);
}
