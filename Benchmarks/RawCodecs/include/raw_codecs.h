// The baselines of the encode benchmarks: libvpx, libsamplerate and libopus
// called directly from C with the same settings CastRemoteDisplay uses, so
// the Swift path can be measured as a ratio to them in the same process.
#ifndef RAW_CODECS_H
#define RAW_CODECS_H

#include <stddef.h>
#include <stdint.h>

typedef struct raw_vp8 raw_vp8;

/// A VP8 encoder configured like CastRemoteDisplay's `VideoEncoder`
/// (Modules/RemoteDisplay/Video/VPXCodec.swift). NULL on failure.
raw_vp8 *raw_vp8_create(int width, int height, int frame_rate, int bitrate, int threads, int speed);

/// The I420 input image the caller writes each frame into.
uint8_t *raw_vp8_plane(raw_vp8 *encoder, int plane, int *stride);

/// Encodes the input image; returns the frame's size (its bytes at *data) or -1.
long raw_vp8_encode(raw_vp8 *encoder, int64_t timestamp_us, int key_frame, const uint8_t **data);

void raw_vp8_destroy(raw_vp8 *encoder);

typedef struct raw_audio raw_audio;

/// int16 interleaved stereo at `input_rate` → libsamplerate (medium sinc) →
/// 48 kHz float → libopus (restricted low delay, 10 ms frames). NULL on failure.
raw_audio *raw_audio_create(int input_rate, int channels, int bitrate);

/// Converts `frames` frames and encodes every complete 10 ms frame;
/// returns the number of Opus packets made (their sizes summed in *bytes) or -1.
int raw_audio_process(raw_audio *audio, const int16_t *samples, int frames, long *bytes);

/// From now on, sends each Opus packet as the least a Cast Streaming sender
/// does: under AES-128-CTR (`key`; the counter block is `mask` XOR the frame
/// id) behind an 18-byte RTP and Cast header, as one datagram on the
/// connected UDP `socket`; and after each call reads and drops every
/// datagram waiting there, as a sender takes the receiver's feedback.
/// Returns 0 on success.
int raw_audio_send_as_cast(raw_audio *audio, int socket, const uint8_t *key, const uint8_t *mask);

void raw_audio_destroy(raw_audio *audio);

/// AES-128-CTR over `count` bytes from the initial counter block `iv`,
/// through OpenSSL's EVP interface as CastRemoteDisplay's frame cipher calls
/// it (Modules/RemoteDisplay/Streaming/FrameCipher.swift). Returns 0 on success.
int raw_aes128_ctr(const uint8_t *key, const uint8_t *iv, const uint8_t *input, uint8_t *output, size_t count);

#endif
