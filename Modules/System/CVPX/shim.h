// libvpx (VP8) for Swift. `vpx_codec_enc_init` and `vpx_codec_dec_init` are
// function-like macros that carry the ABI version, which Swift cannot import;
// these inline wrappers expand them in C.
#ifndef CVPX_SHIM_H
#define CVPX_SHIM_H

#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

static inline vpx_codec_err_t cvpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                                  const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, iface, cfg, flags);
}

static inline vpx_codec_err_t cvpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                                  const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, iface, cfg, flags);
}

/// `vpx_codec_control` is a variadic macro; these are the integer controls the encoder uses.
static inline vpx_codec_err_t cvpx_codec_control_int(vpx_codec_ctx_t *ctx, int control, int value) {
    return vpx_codec_control_(ctx, control, value);
}

#endif
