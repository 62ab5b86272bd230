// EGL and OpenGL ES 2 for Swift: the EGL sample draws without a window, on
// Mesa's surfaceless platform (software rendering where there is no GPU).
// The headers and libraries come from libglvnd (libegl-dev, libgles-dev).
#ifndef CEGL_SHIM_H
#define CEGL_SHIM_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>

#endif
