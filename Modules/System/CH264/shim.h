// Cisco's OpenH264 encoder for Swift. Its C interface is a table of
// function pointers behind a pointer (`(*encoder)->EncodeFrame(encoder, …)`);
// these inline wrappers make each call one function, and set up the
// parameters Cast Streaming needs in C, where the nested layer arrays are plain.
#ifndef CH264_SHIM_H
#define CH264_SHIM_H

#include <string.h>
#include <wels/codec_api.h>

/// An encoder that reports errors only: OpenH264 otherwise prints warnings
/// to stderr, one at every initialisation (that bitrate is not held
/// exactly without frame skipping, which Cast Streaming keeps off on purpose).
static inline int ch264_encoder_create(ISVCEncoder **encoder) {
    int status = WelsCreateSVCEncoder(encoder);
    if (status != 0 || *encoder == NULL) return status;
    int level = WELS_LOG_ERROR;
    (void)(**encoder)->SetOption(*encoder, ENCODER_OPTION_TRACE_LEVEL, &level);
    return 0;
}

static inline void ch264_encoder_destroy(ISVCEncoder *encoder) { WelsDestroySVCEncoder(encoder); }

/// A realtime encoder for one stream: one spatial and one
/// temporal layer, Constrained Baseline (CAVLC, no B-frames: every decoder
/// takes it, and nothing waits for a later frame), one reference frame, key
/// frames only when forced, no frame skipping inside the encoder (the
/// sender drops frames itself), constant SPS/PPS ids, I420 input.
static inline int ch264_encoder_initialize(ISVCEncoder *encoder, int width, int height, int bitrate,
                                           float frameRate, int threads) {
    SEncParamExt parameters;
    int status = (*encoder)->GetDefaultParams(encoder, &parameters);
    if (status != 0) return status;
    // Camera, not screen-content, rate control: measured on a moving pattern
    // (OpenH264 2.3.1), SCREEN_CONTENT_REAL_TIME spent 3.3 kB a frame of a
    // 6.25 kB budget and took seconds to follow a lower bitrate, where
    // CAMERA_VIDEO_REAL_TIME spends the budget and follows within half a second,
    // which congestion control needs.
    parameters.iUsageType = CAMERA_VIDEO_REAL_TIME;
    parameters.iPicWidth = width;
    parameters.iPicHeight = height;
    parameters.iTargetBitrate = bitrate;
    parameters.iMaxBitrate = UNSPECIFIED_BIT_RATE;
    parameters.iRCMode = RC_BITRATE_MODE;
    parameters.fMaxFrameRate = frameRate;
    parameters.iTemporalLayerNum = 1;
    parameters.iSpatialLayerNum = 1;
    parameters.sSpatialLayers[0].iVideoWidth = width;
    parameters.sSpatialLayers[0].iVideoHeight = height;
    parameters.sSpatialLayers[0].fFrameRate = frameRate;
    parameters.sSpatialLayers[0].iSpatialBitrate = bitrate;
    parameters.sSpatialLayers[0].iMaxSpatialBitrate = UNSPECIFIED_BIT_RATE;
    parameters.sSpatialLayers[0].uiProfileIdc = PRO_BASELINE;
    parameters.sSpatialLayers[0].sSliceArgument.uiSliceMode = SM_SINGLE_SLICE;
    parameters.uiIntraPeriod = 0;
    parameters.iNumRefFrame = 1;
    parameters.eSpsPpsIdStrategy = CONSTANT_ID;
    parameters.iEntropyCodingModeFlag = 0;
    parameters.bEnableFrameSkip = false;
    parameters.bEnableSceneChangeDetect = false;
    parameters.bEnableDenoise = false;
    parameters.bEnableBackgroundDetection = true;
    parameters.bEnableAdaptiveQuant = true;
    parameters.iMultipleThreadIdc = (unsigned short)threads;
    status = (*encoder)->InitializeExt(encoder, &parameters);
    if (status != 0) return status;
    int format = videoFormatI420;
    return (*encoder)->SetOption(encoder, ENCODER_OPTION_DATAFORMAT, &format);
}

static inline int ch264_encoder_uninitialize(ISVCEncoder *encoder) { return (*encoder)->Uninitialize(encoder); }

static inline int ch264_encoder_set_bitrate(ISVCEncoder *encoder, int bitrate) {
    SBitrateInfo info;
    memset(&info, 0, sizeof info);
    info.iLayer = SPATIAL_LAYER_ALL;
    info.iBitrate = bitrate;
    return (*encoder)->SetOption(encoder, ENCODER_OPTION_BITRATE, &info);
}

static inline int ch264_encoder_force_key_frame(ISVCEncoder *encoder) {
    return (*encoder)->ForceIntraFrame(encoder, true);
}

/// Encodes one I420 picture into `info`; `timestamp` in milliseconds.
static inline int ch264_encoder_encode(ISVCEncoder *encoder, unsigned char *planes[3], const int strides[3],
                                       int width, int height, long long timestamp, SFrameBSInfo *info) {
    SSourcePicture picture;
    memset(&picture, 0, sizeof picture);
    picture.iColorFormat = videoFormatI420;
    picture.iPicWidth = width;
    picture.iPicHeight = height;
    picture.uiTimeStamp = timestamp;
    for (int plane = 0; plane < 3; plane++) {
        picture.pData[plane] = planes[plane];
        picture.iStride[plane] = strides[plane];
    }
    memset(info, 0, sizeof *info);
    return (*encoder)->EncodeFrame(encoder, &picture, info);
}

/// The bytes of every NAL unit of an encoded frame, Annex B (start codes included).
static inline int ch264_frame_size(const SFrameBSInfo *info) {
    int total = 0;
    for (int layer = 0; layer < info->iLayerNum; layer++) {
        for (int nal = 0; nal < info->sLayerInfo[layer].iNalCount; nal++) {
            total += info->sLayerInfo[layer].pNalLengthInByte[nal];
        }
    }
    return total;
}

/// Copies the frame's NAL units, in order, to `destination` (`ch264_frame_size` bytes).
static inline void ch264_frame_copy(const SFrameBSInfo *info, unsigned char *destination) {
    for (int layer = 0; layer < info->iLayerNum; layer++) {
        int size = 0;
        for (int nal = 0; nal < info->sLayerInfo[layer].iNalCount; nal++) {
            size += info->sLayerInfo[layer].pNalLengthInByte[nal];
        }
        memcpy(destination, info->sLayerInfo[layer].pBsBuf, (size_t)size);
        destination += size;
    }
}

/// Whether the frame is an IDR (a key frame).
static inline bool ch264_frame_is_key(const SFrameBSInfo *info) { return info->eFrameType == videoFrameTypeIDR; }

/// Whether the encoder skipped the frame (nothing to send).
static inline bool ch264_frame_is_skipped(const SFrameBSInfo *info) { return info->eFrameType == videoFrameTypeSkip; }

#endif
