// libaom (AV1) for Swift. `aom_codec_enc_init` is a function-like macro
// that carries the ABI version, and `aom_codec_control` is variadic: Swift
// can import neither, so these inline wrappers call them in C.
#ifndef CAOM_SHIM_H
#define CAOM_SHIM_H

#include <aom/aom_encoder.h>
#include <aom/aomcx.h>

static inline aom_codec_err_t caom_codec_enc_init(aom_codec_ctx_t *ctx, aom_codec_iface_t *iface,
                                                  const aom_codec_enc_cfg_t *cfg, aom_codec_flags_t flags) {
    return aom_codec_enc_init(ctx, iface, cfg, flags);
}

/// The integer controls the encoder uses.
static inline aom_codec_err_t caom_codec_control_int(aom_codec_ctx_t *ctx, int control, int value) {
    return aom_codec_control(ctx, control, value);
}

/// Delta frames reference only the previous frame and refresh only it, as
/// the VP8/VP9 encoders do here: frame n+1 needs exactly frame n.
static inline aom_enc_frame_flags_t caom_delta_flags(void) {
    return AOM_EFLAG_NO_REF_LAST2 | AOM_EFLAG_NO_REF_LAST3 | AOM_EFLAG_NO_REF_GF | AOM_EFLAG_NO_REF_ARF |
           AOM_EFLAG_NO_REF_BWD | AOM_EFLAG_NO_REF_ARF2 | AOM_EFLAG_NO_UPD_GF | AOM_EFLAG_NO_UPD_ARF;
}

#endif
