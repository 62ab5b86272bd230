// FFmpeg's libavcodec for the receiver emulator: the decoders a receiver
// has (Open Screen's receiver decodes through it too), for the codecs this
// sender encodes with libraries other than libvpx.
#ifndef CAVCODEC_SHIM_H
#define CAVCODEC_SHIM_H

#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

/// `AVERROR(EAGAIN)` is a macro Swift cannot import.
static inline int cavcodec_error_again(void) { return AVERROR(EAGAIN); }

#endif
