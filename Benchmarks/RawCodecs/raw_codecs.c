#include "raw_codecs.h"

#include <errno.h>
#include <openssl/evp.h>
#include <opus/opus.h>
#include <samplerate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <vpx/vp8cx.h>
#include <vpx/vpx_encoder.h>

struct raw_vp8 {
    vpx_codec_ctx_t context;
    vpx_codec_enc_cfg_t config;
    vpx_image_t image;
    unsigned long frame_duration;
};

raw_vp8 *raw_vp8_create(int width, int height, int frame_rate, int bitrate, int threads, int speed) {
    raw_vp8 *encoder = calloc(1, sizeof(raw_vp8));
    if (!encoder) return NULL;
    vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &encoder->config, 0);
    vpx_codec_enc_cfg_t *c = &encoder->config;
    c->g_w = width;
    c->g_h = height;
    c->g_timebase.num = 1;
    c->g_timebase.den = 1000000;
    c->g_threads = threads;
    c->g_lag_in_frames = 0;
    c->g_error_resilient = VPX_ERROR_RESILIENT_DEFAULT;
    c->g_pass = VPX_RC_ONE_PASS;
    c->rc_end_usage = VPX_CBR;
    c->rc_target_bitrate = bitrate / 1000;
    c->rc_min_quantizer = 4;
    c->rc_max_quantizer = 63;
    c->rc_dropframe_thresh = 0;
    c->rc_resize_allowed = 0;
    c->rc_undershoot_pct = 100;
    c->rc_overshoot_pct = 15;
    c->rc_buf_initial_sz = 500;
    c->rc_buf_optimal_sz = 600;
    c->rc_buf_sz = 1000;
    c->kf_mode = VPX_KF_DISABLED;
    if (vpx_codec_enc_init(&encoder->context, vpx_codec_vp8_cx(), c, 0) != VPX_CODEC_OK) {
        free(encoder);
        return NULL;
    }
    int partitions = threads >= 8 ? 3 : threads >= 4 ? 2 : threads >= 2 ? 1 : 0;
    vpx_codec_control(&encoder->context, VP8E_SET_CPUUSED, -speed);
    vpx_codec_control(&encoder->context, VP8E_SET_NOISE_SENSITIVITY, 0);
    vpx_codec_control(&encoder->context, VP8E_SET_STATIC_THRESHOLD, 1);
    vpx_codec_control(&encoder->context, VP8E_SET_TOKEN_PARTITIONS, partitions);
    vpx_img_alloc(&encoder->image, VPX_IMG_FMT_I420, width, height, 32);
    encoder->frame_duration = 1000000 / frame_rate;
    return encoder;
}

uint8_t *raw_vp8_plane(raw_vp8 *encoder, int plane, int *stride) {
    *stride = encoder->image.stride[plane];
    return encoder->image.planes[plane];
}

long raw_vp8_encode(raw_vp8 *encoder, int64_t timestamp_us, int key_frame, const uint8_t **data) {
    vpx_enc_frame_flags_t flags = key_frame
        ? VPX_EFLAG_FORCE_KF
        : (VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF);
    if (vpx_codec_encode(&encoder->context, &encoder->image, timestamp_us, encoder->frame_duration, flags,
                         VPX_DL_REALTIME) != VPX_CODEC_OK) {
        return -1;
    }
    vpx_codec_iter_t iterator = NULL;
    const vpx_codec_cx_pkt_t *packet;
    while ((packet = vpx_codec_get_cx_data(&encoder->context, &iterator))) {
        if (packet->kind == VPX_CODEC_CX_FRAME_PKT) {
            *data = packet->data.frame.buf;
            return (long)packet->data.frame.sz;
        }
    }
    return -1;
}

void raw_vp8_destroy(raw_vp8 *encoder) {
    if (!encoder) return;
    vpx_img_free(&encoder->image);
    vpx_codec_destroy(&encoder->context);
    free(encoder);
}

enum { kOpusFrame = 480, kMaxInput = 4096, kMaxPacket = 4000, kCastHeader = 18 };

struct raw_audio {
    SRC_STATE *resampler;
    OpusEncoder *opus;
    int channels;
    double ratio;
    float input[kMaxInput * 2];
    float pending[(kMaxInput * 6 + kOpusFrame) * 2];
    int pending_frames;
    unsigned char packet[kMaxPacket];
    // Set by raw_audio_send_as_cast.
    EVP_CIPHER_CTX *cipher;
    int socket;
    uint8_t mask[16];
    uint32_t frame_id;
    uint16_t sequence;
    unsigned char datagram[kCastHeader + kMaxPacket];
    unsigned char feedback[1500];
};

raw_audio *raw_audio_create(int input_rate, int channels, int bitrate) {
    raw_audio *audio = calloc(1, sizeof(raw_audio));
    if (!audio) return NULL;
    int status = 0;
    audio->channels = channels;
    audio->ratio = 48000.0 / input_rate;
    audio->resampler = src_new(SRC_SINC_MEDIUM_QUALITY, channels, &status);
    audio->opus = opus_encoder_create(48000, channels, OPUS_APPLICATION_RESTRICTED_LOWDELAY, &status);
    if (!audio->resampler || !audio->opus) {
        raw_audio_destroy(audio);
        return NULL;
    }
    opus_encoder_ctl(audio->opus, OPUS_SET_BITRATE(bitrate));
    return audio;
}

int raw_audio_send_as_cast(raw_audio *audio, int socket, const uint8_t *key, const uint8_t *mask) {
    audio->cipher = EVP_CIPHER_CTX_new();
    if (audio->cipher == NULL) return -1;
    audio->socket = socket;
    memcpy(audio->mask, mask, 16);
    return EVP_EncryptInit_ex(audio->cipher, EVP_aes_128_ctr(), NULL, key, NULL) == 1 ? 0 : -1;
}

static void put32(unsigned char *bytes, uint32_t value) {
    bytes[0] = (unsigned char)(value >> 24);
    bytes[1] = (unsigned char)(value >> 16);
    bytes[2] = (unsigned char)(value >> 8);
    bytes[3] = (unsigned char)value;
}

// One Opus packet as one Cast Streaming datagram (Docs/spec/cast-streaming.md):
// RTP header (marker, payload type 127, sequence, RTP time, SSRC), Cast header
// (key frame, frame id, packet 0 of 0), the payload under AES-128-CTR from the
// IV mask XOR the frame id in bytes 8…11.
static int raw_cast_send(raw_audio *audio, int length) {
    unsigned char *datagram = audio->datagram;
    uint32_t frame = audio->frame_id++;
    datagram[0] = 0x80;
    datagram[1] = 0x80 | 127;
    datagram[2] = (unsigned char)(audio->sequence >> 8);
    datagram[3] = (unsigned char)audio->sequence;
    audio->sequence++;
    put32(datagram + 4, frame * kOpusFrame);
    put32(datagram + 8, 0x5eed);
    datagram[12] = 0x80;
    datagram[13] = (unsigned char)frame;
    memset(datagram + 14, 0, 4);
    uint8_t iv[16];
    memcpy(iv, audio->mask, 16);
    iv[8] ^= (uint8_t)(frame >> 24);
    iv[9] ^= (uint8_t)(frame >> 16);
    iv[10] ^= (uint8_t)(frame >> 8);
    iv[11] ^= (uint8_t)frame;
    int written = 0;
    if (EVP_EncryptInit_ex(audio->cipher, NULL, NULL, NULL, iv) != 1
        || EVP_EncryptUpdate(audio->cipher, datagram + kCastHeader, &written, audio->packet, length) != 1)
        return -1;
    if (send(audio->socket, datagram, (size_t)(kCastHeader + length), MSG_DONTWAIT) < 0 && errno != EAGAIN) return -1;
    return 0;
}

int raw_audio_process(raw_audio *audio, const int16_t *samples, int frames, long *bytes) {
    if (frames > kMaxInput) return -1;
    src_short_to_float_array(samples, audio->input, frames * audio->channels);
    SRC_DATA data = {0};
    data.data_in = audio->input;
    data.input_frames = frames;
    data.data_out = audio->pending + audio->pending_frames * audio->channels;
    data.output_frames = kMaxInput * 6;
    data.src_ratio = audio->ratio;
    if (src_process(audio->resampler, &data) != 0) return -1;
    audio->pending_frames += (int)data.output_frames_gen;
    int packets = 0;
    int offset = 0;
    while (audio->pending_frames - offset >= kOpusFrame) {
        int length = opus_encode_float(audio->opus, audio->pending + offset * audio->channels, kOpusFrame,
                                       audio->packet, kMaxPacket);
        if (length < 0) return -1;
        if (audio->cipher && raw_cast_send(audio, length) != 0) return -1;
        *bytes += length;
        packets += 1;
        offset += kOpusFrame;
    }
    audio->pending_frames -= offset;
    memmove(audio->pending, audio->pending + offset * audio->channels,
            (size_t)audio->pending_frames * audio->channels * sizeof(float));
    // The receiver's feedback, read and dropped.
    while (audio->cipher && recv(audio->socket, audio->feedback, sizeof audio->feedback, MSG_DONTWAIT) > 0) {
    }
    return packets;
}

void raw_audio_destroy(raw_audio *audio) {
    if (!audio) return;
    if (audio->resampler) src_delete(audio->resampler);
    if (audio->opus) opus_encoder_destroy(audio->opus);
    if (audio->cipher) EVP_CIPHER_CTX_free(audio->cipher);
    free(audio);
}

int raw_aes128_ctr(const uint8_t *key, const uint8_t *iv, const uint8_t *input, uint8_t *output, size_t count) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return -1;
    int written = 0;
    int ok = EVP_EncryptInit_ex(context, EVP_aes_128_ctr(), NULL, key, iv) == 1
        && EVP_EncryptUpdate(context, output, &written, input, (int)count) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok ? 0 : -1;
}
