import CAOM
import CastStreaming

/// libaom's AV1 encoder in its realtime mode, tuned for screen content,
/// with every status mapped to `CastRemoteDisplayError` in one place.
///
/// libaom (BSD-2-Clause, Debian's 3.6) and not SVT-AV1: measured on the same
/// 720p30 source with two threads (`ffmpeg -usage realtime -cpu-used 8` and
/// `-preset 12 pred-struct=1`), SVT-AV1 1.4.1 was faster (5.9 against 11 ms a
/// frame at 3 Mbit/s, equal PSNR), but its low-delay mode calls itself "a
/// work-in-progress project … only available for demos" and forces a
/// hierarchical reference structure, where Cast Streaming wants each frame to
/// need only the one before; libaom's realtime mode is what WebRTC sends, and
/// through its own API it runs at speed 10, faster than FFmpeg's cap of 8.
//
// @unchecked Sendable: the libaom context, configuration and image are
// mutable C state, but an `AOMCodec` is created by and stored only in one
// noncopyable `VideoEncoder` (its `Engine`), whose `mutating` methods are the
// only callers: one owner, one thread at a time, never shared.
final class AOMCodec: @unchecked Sendable {
    private let context = UnsafeMutablePointer<aom_codec_ctx_t>.allocate(capacity: 1)
    private let config = UnsafeMutablePointer<aom_codec_enc_cfg_t>.allocate(capacity: 1)
    private let image = UnsafeMutablePointer<aom_image_t>.allocate(capacity: 1)
    private let frameDuration: UInt
    private var initialized = false

    init(configuration: VideoEncoderConfiguration) throws(CastRemoteDisplayError) {
        self.context.initialize(to: aom_codec_ctx_t())
        self.config.initialize(to: aom_codec_enc_cfg_t())
        self.image.initialize(to: aom_image_t())
        self.frameDuration = UInt(RemoteDisplayLimits.vpxTimebaseDenominator) / UInt(configuration.frameRate)
        let interface = aom_codec_av1_cx()
        try Self.check(aom_codec_enc_config_default(interface, self.config, UInt32(AOM_USAGE_REALTIME)), "configure")
        Self.apply(configuration, to: &self.config.pointee)
        try Self.check(caom_codec_enc_init(self.context, interface, self.config, 0), "initialise")
        self.initialized = true
        try self.applyRealtimeControls()
        aom_img_wrap(self.image, AOM_IMG_FMT_I420, UInt32(configuration.width), UInt32(configuration.height), 1, nil)
    }

    /// The controls WebRTC's libaom encoder sets for real time (webrtc
    /// modules/video_coding/codecs/av1/libaom_av1_encoder.cc, screen sharing
    /// mode): realtime speeds are 7…10; screen content tools with palettes,
    /// rows in parallel, cyclic refresh (aq-mode 3); no temporal model or
    /// delta quantizer; the entropy costs left at their defaults rather than
    /// updated per superblock, row or tile (`*_COST_UPD_FREQ` 3); and the tools that spend time for little in real time off
    /// (overlapped, warped and global motion, the intra modes WebRTC turns
    /// off to encode key frames sooner). Measured at 720p30, 5 Mbit/s
    /// (`scripts/measure-openscreen.sh`): 0.57 → 0.44 CPU-s per second of
    /// video, the cost updates alone 0.45; luma PSNR of the moving test
    /// pattern (`LatencyBenchmarks`, 3 Mbit/s) mean 48.7 → 48.9 dB, lowest
    /// 38.5 → 37.9 dB.
    private func applyRealtimeControls() throws(CastRemoteDisplayError) {
        try self.control(AOME_SET_CPUUSED, 10)
        try self.control(AV1E_SET_TUNE_CONTENT, Int32(AOM_CONTENT_SCREEN.rawValue))
        try self.control(AV1E_SET_ENABLE_PALETTE, 1)
        try self.control(AV1E_SET_ROW_MT, 1)
        try self.control(AV1E_SET_AQ_MODE, 3)
        try self.control(AV1E_SET_ENABLE_TPL_MODEL, 0)
        try self.control(AV1E_SET_DELTAQ_MODE, 0)
        for control in [AV1E_SET_COEFF_COST_UPD_FREQ, AV1E_SET_MODE_COST_UPD_FREQ, AV1E_SET_MV_COST_UPD_FREQ] {
            try self.control(control, 3)
        }
        for control in [
            AV1E_SET_ENABLE_OBMC, AV1E_SET_ENABLE_WARPED_MOTION, AV1E_SET_ENABLE_GLOBAL_MOTION,
            AV1E_SET_NOISE_SENSITIVITY, AV1E_SET_ENABLE_CFL_INTRA, AV1E_SET_ENABLE_SMOOTH_INTRA,
            AV1E_SET_ENABLE_ANGLE_DELTA, AV1E_SET_ENABLE_FILTER_INTRA,
        ] {
            try self.control(control, 0)
        }
        try self.control(AV1E_SET_INTRA_DEFAULT_TX_ONLY, 1)
    }

    deinit {
        if self.initialized { aom_codec_destroy(self.context) }
        aom_img_free(self.image)
        self.context.deallocate()
        self.config.deallocate()
        self.image.deallocate()
    }

    /// The fixed part, as `VPXCodec` sets libvpx: one pass, CBR, no lag, no
    /// frame dropping or resizing inside the encoder, key frames on demand.
    private static func apply(_ configuration: VideoEncoderConfiguration, to config: inout aom_codec_enc_cfg_t) {
        config.g_w = UInt32(configuration.width)
        config.g_h = UInt32(configuration.height)
        config.g_timebase = aom_rational(num: 1, den: RemoteDisplayLimits.vpxTimebaseDenominator)
        config.g_threads = UInt32(configuration.threadCount)
        config.g_lag_in_frames = 0
        config.g_error_resilient = 1
        config.g_pass = AOM_RC_ONE_PASS
        config.rc_end_usage = AOM_CBR
        config.rc_target_bitrate = UInt32(configuration.bitrate / 1_000)
        config.rc_min_quantizer = VideoEncoderConfiguration.quantizerRange.lowerBound
        config.rc_max_quantizer = VideoEncoderConfiguration.quantizerRange.upperBound
        config.rc_dropframe_thresh = 0
        config.rc_resize_mode = 0
        config.rc_undershoot_pct = VideoEncoderConfiguration.undershootPercent
        config.rc_overshoot_pct = VideoEncoderConfiguration.overshootPercent
        config.rc_buf_initial_sz = UInt32(VideoEncoderConfiguration.bufferMilliseconds.initial)
        config.rc_buf_optimal_sz = UInt32(VideoEncoderConfiguration.bufferMilliseconds.optimal)
        config.rc_buf_sz = UInt32(VideoEncoderConfiguration.bufferMilliseconds.size)
        config.kf_mode = AOM_KF_DISABLED
    }

    func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        let previous = self.config.pointee.rc_target_bitrate
        self.config.pointee.rc_target_bitrate = UInt32(bitsPerSecond / 1_000)
        do {
            try Self.check(aom_codec_enc_config_set(self.context, self.config), "set bitrate")
        } catch {
            self.config.pointee.rc_target_bitrate = previous
            throw error
        }
    }

    /// Changes the frame size, up to the one the encoder was created with.
    func setSize(width: Int, height: Int) throws(CastRemoteDisplayError) {
        let previous = (self.config.pointee.g_w, self.config.pointee.g_h)
        self.config.pointee.g_w = UInt32(width)
        self.config.pointee.g_h = UInt32(height)
        do {
            try Self.check(aom_codec_enc_config_set(self.context, self.config), "set size")
        } catch {
            (self.config.pointee.g_w, self.config.pointee.g_h) = previous
            throw error
        }
        aom_img_free(self.image)
        aom_img_wrap(self.image, AOM_IMG_FMT_I420, UInt32(width), UInt32(height), 1, nil)
    }

    /// Encodes the I420 picture in `storage`: one temporal unit of OBUs,
    /// valid until the next call.
    func encode(_ storage: PixelStorage, timestamp: Int64, keyFrame: Bool) throws(CastRemoteDisplayError)
        -> UnsafeRawBufferPointer
    {
        let layout = storage.layout
        withUnsafeMutablePointer(to: &self.image.pointee.planes) { planes in
            planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 3) { planes in
                for plane in 0..<3 {
                    planes[plane] = (storage.bytes + layout.offsets[plane]).assumingMemoryBound(to: UInt8.self)
                }
            }
        }
        withUnsafeMutablePointer(to: &self.image.pointee.stride) { strides in
            strides.withMemoryRebound(to: Int32.self, capacity: 3) { strides in
                for plane in 0..<3 { strides[plane] = Int32(layout.bytesPerRow[plane]) }
            }
        }
        let flags = keyFrame ? aom_enc_frame_flags_t(AOM_EFLAG_FORCE_KF) : caom_delta_flags()
        try Self.check(aom_codec_encode(self.context, self.image, timestamp, UInt(self.frameDuration), flags), "encode")
        var iterator: aom_codec_iter_t? = nil
        while let packet = aom_codec_get_cx_data(self.context, &iterator) {
            if packet.pointee.kind == AOM_CODEC_CX_FRAME_PKT {
                let frame = packet.pointee.data.frame
                return UnsafeRawBufferPointer(start: frame.buf, count: frame.sz)
            }
        }
        throw CastRemoteDisplayError(.codecFailure, "libaom produced no frame (frame dropping is off)")
    }

    private func control(_ id: aome_enc_control_id, _ value: Int32) throws(CastRemoteDisplayError) {
        try Self.check(caom_codec_control_int(self.context, Int32(id.rawValue), value), "control \(id.rawValue)")
    }

    private static func check(_ status: aom_codec_err_t, _ operation: String) throws(CastRemoteDisplayError) {
        guard status != AOM_CODEC_OK else { return }
        throw CastRemoteDisplayError(
            .codecFailure, "libaom failed to \(operation)",
            cause: CastRemoteDisplayError.LibraryFailure(
                library: "libaom", status: Int32(status.rawValue),
                detail: String(cString: aom_codec_err_to_string(status))))
    }
}
