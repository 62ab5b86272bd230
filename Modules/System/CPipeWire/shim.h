// libpipewire-0.3 for Swift: the headers, plus small C helpers where the
// API is made of macros Swift cannot call (SPA POD building, the core and
// registry methods).
#ifndef CPIPEWIRE_SHIM_H
#define CPIPEWIRE_SHIM_H

#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/latency-utils.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

/// A POD builder writing into `data`.
static inline struct spa_pod_builder cpw_builder(void *data, uint32_t size) {
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(data, size);
    return builder;
}

/// DRM_FORMAT_MOD_LINEAR: a DMA-BUF laid out row after row, which the CPU
/// reads through a mapping as it reads shared memory.
#define CPW_MODIFIER_LINEAR 0

/// An EnumFormat param for raw video: `count` pixel formats (the first
/// preferred), a size range and a frame-rate range, and — with
/// `modifier` ≥ 0 — that DRM modifier, mandatory (the buffers are then
/// DMA-BUFs). Equal bounds give a fixed value rather than a choice, as a
/// producer offers.
static inline const struct spa_pod *cpw_video_format(
    struct spa_pod_builder *b, const uint32_t *formats, uint32_t count,
    struct spa_rectangle min_size, struct spa_rectangle max_size, struct spa_rectangle size,
    struct spa_fraction min_rate, struct spa_fraction max_rate, struct spa_fraction rate, int64_t modifier) {
    struct spa_pod_frame object, choice;
    spa_pod_builder_push_object(b, &object, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    spa_pod_builder_prop(b, SPA_FORMAT_mediaType, 0);
    spa_pod_builder_id(b, SPA_MEDIA_TYPE_video);
    spa_pod_builder_prop(b, SPA_FORMAT_mediaSubtype, 0);
    spa_pod_builder_id(b, SPA_MEDIA_SUBTYPE_raw);
    spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_format, 0);
    if (count == 1) {
        spa_pod_builder_id(b, formats[0]);
    } else {
        spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Enum, 0);
        spa_pod_builder_id(b, formats[0]);
        for (uint32_t i = 0; i < count; i++) spa_pod_builder_id(b, formats[i]);
        spa_pod_builder_pop(b, &choice);
    }
    spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_size, 0);
    if (min_size.width == max_size.width && min_size.height == max_size.height) {
        spa_pod_builder_rectangle(b, size.width, size.height);
    } else {
        spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Range, 0);
        spa_pod_builder_rectangle(b, size.width, size.height);
        spa_pod_builder_rectangle(b, min_size.width, min_size.height);
        spa_pod_builder_rectangle(b, max_size.width, max_size.height);
        spa_pod_builder_pop(b, &choice);
    }
    spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_framerate, 0);
    if (min_rate.num == max_rate.num && min_rate.denom == max_rate.denom) {
        spa_pod_builder_fraction(b, rate.num, rate.denom);
    } else {
        spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Range, 0);
        spa_pod_builder_fraction(b, rate.num, rate.denom);
        spa_pod_builder_fraction(b, min_rate.num, min_rate.denom);
        spa_pod_builder_fraction(b, max_rate.num, max_rate.denom);
        spa_pod_builder_pop(b, &choice);
    }
    if (modifier >= 0) {
        spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_modifier, SPA_POD_PROP_FLAG_MANDATORY);
        spa_pod_builder_long(b, modifier);
    }
    return (const struct spa_pod *)spa_pod_builder_pop(b, &object);
}

/// A Buffers param: how many buffers, of which memory types (a bit mask of
/// `1 << SPA_DATA_*`), and — when positive — their size and stride.
static inline const struct spa_pod *cpw_buffers(
    struct spa_pod_builder *b, int32_t count, int32_t min_count, int32_t max_count,
    int32_t size, int32_t stride, int32_t data_types) {
    struct spa_pod_frame object;
    spa_pod_builder_push_object(b, &object, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers);
    spa_pod_builder_add(b, SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(count, min_count, max_count),
        SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
        SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int(data_types), 0);
    if (size > 0) spa_pod_builder_add(b, SPA_PARAM_BUFFERS_size, SPA_POD_Int(size), 0);
    if (stride > 0) spa_pod_builder_add(b, SPA_PARAM_BUFFERS_stride, SPA_POD_Int(stride), 0);
    return (const struct spa_pod *)spa_pod_builder_pop(b, &object);
}

/// A Meta param asking for metadata of `type` (`SPA_META_*`), `size` bytes.
static inline const struct spa_pod *cpw_meta(struct spa_pod_builder *b, uint32_t type, int32_t size) {
    return (const struct spa_pod *)spa_pod_builder_add_object(b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(type), SPA_PARAM_META_size, SPA_POD_Int(size));
}

/// Reads a negotiated raw-video Format param; 0 on success, negative when
/// it is not raw video.
static inline int cpw_parse_video_format(const struct spa_pod *param, struct spa_video_info_raw *info) {
    uint32_t media_type, media_subtype;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0) return -EINVAL;
    if (media_type != SPA_MEDIA_TYPE_video || media_subtype != SPA_MEDIA_SUBTYPE_raw) return -EINVAL;
    return spa_format_video_raw_parse(param, info);
}

/// Whether a negotiated format carries a DRM modifier: its buffers are DMA-BUFs.
static inline bool cpw_video_info_has_modifier(const struct spa_video_info_raw *info) {
    return (info->flags & SPA_VIDEO_FLAG_MODIFIER) != 0;
}

/// Brackets CPU reads of a mapped DMA-BUF (DMA_BUF_IOCTL_SYNC, linux/dma-buf.h);
/// 0, or -1 with errno (ENOTTY for memory that is not a DMA-BUF).
static inline int cpw_dmabuf_sync(int fd, bool start) {
    struct dma_buf_sync sync = { .flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | DMA_BUF_SYNC_READ };
    return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

/// The core's registry (the objects of the graph).
static inline struct pw_registry *cpw_core_get_registry(struct pw_core *core) {
    return pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
}

/// Listens to the registry.
static inline int cpw_registry_add_listener(
    struct pw_registry *registry, struct spa_hook *hook, const struct pw_registry_events *events, void *data) {
    return pw_registry_add_listener(registry, hook, events, data);
}

/// Listens to the core (its errors: a broken connection).
static inline int cpw_core_add_listener(
    struct pw_core *core, struct spa_hook *hook, const struct pw_core_events *events, void *data) {
    return pw_core_add_listener(core, hook, events, data);
}

/// Connects `stream` as a node that takes sound in (a sink, with media
/// class `Audio/Sink`): interleaved 32-bit float at `rate` with `channels`
/// channels (front left and right for two), which its adapter converts
/// any application's sound to. `pw_stream_connect`'s result.
static inline int cpw_stream_connect_audio_input(
    struct pw_stream *stream, uint32_t rate, uint32_t channels, enum pw_stream_flags flags) {
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_audio_info_raw info = { .format = SPA_AUDIO_FORMAT_F32, .rate = rate, .channels = channels };
    if (channels == 2) {
        info.position[0] = SPA_AUDIO_CHANNEL_FL;
        info.position[1] = SPA_AUDIO_CHANNEL_FR;
    } else if (channels == 1) {
        info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    }
    const struct spa_pod *params[1] = { spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat, &info) };
    return pw_stream_connect(stream, SPA_DIRECTION_INPUT, PW_ID_ANY, flags, params, 1);
}

/// Tells the streams that play into the sink node `stream` how long after
/// it takes a sample the sample is heard, `ns` nanoseconds: a Latency param
/// of the input direction, which PipeWire carries up the links to each
/// playing stream, whose delay (`pw_stream_get_time_n`, and through
/// pipewire-pulse `pa_stream_get_latency`) then includes it, as
/// module-raop-sink reports an AirPlay receiver's latency.
/// `pw_stream_update_params`'s result.
static inline int cpw_stream_report_input_latency(struct pw_stream *stream, uint64_t ns) {
    uint8_t buffer[256];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    struct spa_latency_info info = SPA_LATENCY_INFO(SPA_DIRECTION_INPUT);
    info.min_ns = ns;
    info.max_ns = ns;
    const struct spa_pod *params[1] = { spa_latency_build(&builder, SPA_PARAM_Latency, &info) };
    return pw_stream_update_params(stream, params, 1);
}

#endif
