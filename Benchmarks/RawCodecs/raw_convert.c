#include "raw_convert.h"

#include <libyuv/convert.h>

int raw_rgba_to_i420(const uint8_t *rgba, int stride, int width, int height, uint8_t *y, int y_stride, uint8_t *u,
                     int u_stride, uint8_t *v, int v_stride) {
    return ABGRToI420(rgba, stride, y, y_stride, u, u_stride, v, v_stride, width, height);
}
