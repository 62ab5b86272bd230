// libpulse's simple (blocking) API for Swift: recording the desktop's sound
// from a sink's monitor. Works with PulseAudio and with PipeWire's pulse server.
#ifndef CPULSE_SHIM_H
#define CPULSE_SHIM_H

#include <pulse/simple.h>
#include <pulse/error.h>

#endif
