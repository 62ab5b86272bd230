// libyuv (scaling and 4:2:0 conversions) for Swift. Debian's libyuv-dev
// ships no pkg-config file, so the header comes from the default include
// path and the module map links `yuv` by name.
#ifndef CYUV_SHIM_H
#define CYUV_SHIM_H

#include <libyuv.h>

#endif
