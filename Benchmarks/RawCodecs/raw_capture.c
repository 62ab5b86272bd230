#include "raw_capture.h"

#include <libyuv.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <xcb/shm.h>
#include <xcb/xcb.h>

struct raw_capture {
    xcb_connection_t *connection;
    xcb_window_t root;
    int screen_width, screen_height, width, height;
    xcb_shm_seg_t segment;
    uint8_t *pixels;
    uint8_t *scaled;
};

raw_capture *raw_capture_create(const char *display, int width, int height) {
    raw_capture *capture = calloc(1, sizeof *capture);
    capture->connection = xcb_connect(display, NULL);
    if (xcb_connection_has_error(capture->connection)) goto fail;
    xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(capture->connection)).data;
    capture->root = screen->root;
    capture->screen_width = screen->width_in_pixels;
    capture->screen_height = screen->height_in_pixels;
    capture->width = width;
    capture->height = height;
    int id = shmget(IPC_PRIVATE, (size_t)capture->screen_width * capture->screen_height * 4, IPC_CREAT | 0600);
    if (id < 0) goto fail;
    capture->pixels = shmat(id, NULL, 0);
    shmctl(id, IPC_RMID, NULL);
    if (capture->pixels == (void *)-1) goto fail;
    capture->segment = xcb_generate_id(capture->connection);
    xcb_generic_error_t *error =
        xcb_request_check(capture->connection, xcb_shm_attach_checked(capture->connection, capture->segment, id, 0));
    if (error) {
        free(error);
        goto fail;
    }
    capture->scaled = malloc((size_t)width * height * 4);
    return capture;
fail:
    raw_capture_destroy(capture);
    return NULL;
}

int raw_capture_frame(raw_capture *capture, uint8_t *y, uint8_t *u, uint8_t *v) {
    xcb_shm_get_image_reply_t *reply = xcb_shm_get_image_reply(
        capture->connection,
        xcb_shm_get_image(capture->connection, capture->root, 0, 0, capture->screen_width, capture->screen_height, ~0u,
                          XCB_IMAGE_FORMAT_Z_PIXMAP, capture->segment, 0),
        NULL);
    if (!reply) return -1;
    free(reply);
    ARGBScale(capture->pixels, capture->screen_width * 4, capture->screen_width, capture->screen_height,
              capture->scaled, capture->width * 4, capture->width, capture->height, kFilterBilinear);
    return ARGBToI420(capture->scaled, capture->width * 4, y, capture->width, u, capture->width / 2, v,
                      capture->width / 2, capture->width, capture->height);
}

void raw_capture_destroy(raw_capture *capture) {
    if (!capture) return;
    if (capture->pixels && capture->pixels != (void *)-1) shmdt(capture->pixels);
    free(capture->scaled);
    if (capture->connection) xcb_disconnect(capture->connection);
    free(capture);
}
