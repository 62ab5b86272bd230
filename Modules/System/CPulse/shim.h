// libpulse for Swift. The simple (blocking) API records the desktop's sound
// from a sink's monitor (CastCapture); the asynchronous API on a threaded
// main loop makes, watches and removes sinks (CastSpeakers). Both work with
// PulseAudio and with PipeWire's pulse server.
#ifndef CPULSE_SHIM_H
#define CPULSE_SHIM_H

#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

/// PA_VOLUME_NORM (100 %), a macro Swift cannot import.
static inline pa_volume_t cpulse_volume_norm(void) { return PA_VOLUME_NORM; }

#endif
