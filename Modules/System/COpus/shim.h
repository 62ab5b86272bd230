// libopus for Swift. `opus_encoder_ctl` is variadic and its requests are
// type-checking macros, which Swift cannot import; these inline wrappers
// expand the requests the encoder uses in C.
#ifndef COPUS_SHIM_H
#define COPUS_SHIM_H

#include <opus.h>

static inline int copus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}

static inline int copus_encoder_get_bitrate(OpusEncoder *encoder, opus_int32 *bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_GET_BITRATE(bitsPerSecond));
}

static inline int copus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(samples));
}

#endif
