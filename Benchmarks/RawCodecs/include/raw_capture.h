// The baseline of the capture benchmark: an X11 screen read through MIT-SHM
// and made into I420 at another size with libyuv, called directly from C —
// the work CastCapture's ScreenCapture does per picture, without Swift.
#ifndef RAW_CAPTURE_H
#define RAW_CAPTURE_H

#include <stdint.h>

typedef struct raw_capture raw_capture;

/// Connects to `display` and attaches a shared-memory segment for the
/// whole screen; frames come out at `width`×`height`. NULL on failure.
raw_capture *raw_capture_create(const char *display, int width, int height);

/// Reads the screen and scales + converts it into the I420 planes (tight
/// rows) the caller gives. 0 on success.
int raw_capture_frame(raw_capture *capture, uint8_t *y, uint8_t *u, uint8_t *v);

void raw_capture_destroy(raw_capture *capture);

#endif
