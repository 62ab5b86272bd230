// The baseline of the conversion benchmark: libyuv called directly from C.
#ifndef RAW_CONVERT_H
#define RAW_CONVERT_H

#include <stdint.h>

/// RGBA bytes (libyuv's ABGR) of `width`×`height` at `stride` → I420 planes,
/// as PackedPictureConverter converts a picture of the frame's size.
/// Returns libyuv's result (0 on success).
int raw_rgba_to_i420(const uint8_t *rgba, int stride, int width, int height, uint8_t *y, int y_stride, uint8_t *u,
                     int u_stride, uint8_t *v, int v_stride);

#endif
