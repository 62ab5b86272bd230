import CVPX
import CastStreaming

/// The libvpx VP8 or VP9 encoder context and its input image descriptor, with
/// every libvpx status mapped to `CastRemoteDisplayError` in one place.
//
// @unchecked Sendable: the C context is mutable, but a `VPXCodec` belongs to
// exactly one noncopyable `VideoEncoder` and is only used from its `mutating`
// methods, so it is never touched by two threads at once.
final class VPXCodec: @unchecked Sendable {
    private let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
    private let config = UnsafeMutablePointer<vpx_codec_enc_cfg_t>.allocate(capacity: 1)
    private let image = UnsafeMutablePointer<vpx_image_t>.allocate(capacity: 1)
    private let frameDuration: UInt
    private var initialized = false

    init(configuration: VideoEncoderConfiguration) throws(CastRemoteDisplayError) {
        self.context.initialize(to: vpx_codec_ctx_t())
        self.config.initialize(to: vpx_codec_enc_cfg_t())
        self.image.initialize(to: vpx_image_t())
        self.frameDuration = UInt(RemoteDisplayLimits.vpxTimebaseDenominator) / UInt(configuration.frameRate)
        let interface = configuration.codec == .vp9 ? vpx_codec_vp9_cx() : vpx_codec_vp8_cx()
        try Self.check(vpx_codec_enc_config_default(interface, self.config, 0), "default configuration")
        Self.apply(configuration, to: &self.config.pointee)
        try Self.check(cvpx_codec_enc_init(self.context, interface, self.config, 0), "initialise")
        self.initialized = true
        if configuration.codec == .vp8 {
            // Negative: a fixed speed, not adapted to timing.
            try self.control(VP8E_SET_CPUUSED, -Int32(configuration.speed))
            try self.control(VP8E_SET_NOISE_SENSITIVITY, 0)
            try self.control(VP8E_SET_STATIC_THRESHOLD, 1)
            try self.control(
                VP8E_SET_TOKEN_PARTITIONS, Int32(Self.tokenPartitions(threads: configuration.threadCount)))
        } else {
            // VP9 (H.264 never reaches libvpx). libvpx's realtime VP9 speeds are 5…9; screen content tuning as
            // Chrome's mirroring sets it (vpx_encoder.cc:203-206).
            try self.control(VP8E_SET_CPUUSED, Int32(min(configuration.speed + 2, 9)))
            try self.control(VP8E_SET_STATIC_THRESHOLD, 1)
            try self.control(VP9E_SET_TUNE_CONTENT, Int32(VP9E_CONTENT_SCREEN.rawValue))
        }
        // Describe an I420 frame once; `encode` only points the planes at each frame's storage.
        vpx_img_wrap(self.image, VPX_IMG_FMT_I420, UInt32(configuration.width), UInt32(configuration.height), 1, nil)
    }

    deinit {
        if self.initialized {
            vpx_codec_destroy(self.context)
        }
        // `vpx_img_wrap` without data allocates a frame buffer the image owns
        // (1.4 MB at 720p); the soak's LeakSanitizer found it lost per encoder.
        vpx_img_free(self.image)
        self.context.deallocate()
        self.config.deallocate()
        self.image.deallocate()
    }

    /// The settings shared with the raw-libvpx benchmark baseline (Benchmarks/VP8Benchmarks).
    static func apply(_ configuration: VideoEncoderConfiguration, to config: inout vpx_codec_enc_cfg_t) {
        config.g_w = UInt32(configuration.width)
        config.g_h = UInt32(configuration.height)
        config.g_timebase = vpx_rational(num: 1, den: RemoteDisplayLimits.vpxTimebaseDenominator)
        config.g_threads = UInt32(configuration.threadCount)
        config.g_lag_in_frames = 0
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.g_pass = VPX_RC_ONE_PASS
        config.rc_end_usage = VPX_CBR
        config.rc_target_bitrate = UInt32(configuration.bitrate / 1_000)
        config.rc_min_quantizer = VideoEncoderConfiguration.quantizerRange.lowerBound
        config.rc_max_quantizer = VideoEncoderConfiguration.quantizerRange.upperBound
        config.rc_dropframe_thresh = 0
        config.rc_resize_allowed = 0
        config.rc_undershoot_pct = VideoEncoderConfiguration.undershootPercent
        config.rc_overshoot_pct = VideoEncoderConfiguration.overshootPercent
        config.rc_buf_initial_sz = UInt32(VideoEncoderConfiguration.bufferMilliseconds.initial)
        config.rc_buf_optimal_sz = UInt32(VideoEncoderConfiguration.bufferMilliseconds.optimal)
        config.rc_buf_sz = UInt32(VideoEncoderConfiguration.bufferMilliseconds.size)
        config.kf_mode = VPX_KF_DISABLED
    }

    /// log2 of the token partitions: one per thread, up to 8.
    static func tokenPartitions(threads: Int) -> Int {
        threads >= 8 ? 3 : threads >= 4 ? 2 : threads >= 2 ? 1 : 0
    }

    func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        let previous = self.config.pointee.rc_target_bitrate
        self.config.pointee.rc_target_bitrate = UInt32(bitsPerSecond / 1_000)
        do {
            try Self.check(vpx_codec_enc_config_set(self.context, self.config), "set bitrate")
        } catch {
            self.config.pointee.rc_target_bitrate = previous
            throw error
        }
    }

    /// Changes the frame size (libvpx allows any size up to the one the
    /// encoder was created with; vp8_cx_iface.c `vp8e_set_config`).
    func setSize(width: Int, height: Int) throws(CastRemoteDisplayError) {
        let previous = (self.config.pointee.g_w, self.config.pointee.g_h)
        self.config.pointee.g_w = UInt32(width)
        self.config.pointee.g_h = UInt32(height)
        do {
            try Self.check(vpx_codec_enc_config_set(self.context, self.config), "set size")
        } catch {
            (self.config.pointee.g_w, self.config.pointee.g_h) = previous
            throw error
        }
        vpx_img_free(self.image)
        vpx_img_wrap(self.image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, nil)
    }

    /// Encodes the I420 picture in `storage`; the returned bytes are valid until the next call.
    func encode(_ storage: PixelStorage, timestamp: Int64, keyFrame: Bool) throws(CastRemoteDisplayError)
        -> UnsafeRawBufferPointer
    {
        let layout = storage.layout
        withUnsafeMutablePointer(to: &self.image.pointee.planes) { planes in
            planes.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { planes in
                for plane in 0..<3 {
                    planes[plane] = (storage.bytes + layout.offsets[plane]).assumingMemoryBound(to: UInt8.self)
                }
            }
        }
        withUnsafeMutablePointer(to: &self.image.pointee.stride) { strides in
            strides.withMemoryRebound(to: Int32.self, capacity: 4) { strides in
                for plane in 0..<3 {
                    strides[plane] = Int32(layout.bytesPerRow[plane])
                }
            }
        }
        let flags = keyFrame ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : Self.deltaFlags
        try Self.check(
            vpx_codec_encode(self.context, self.image, timestamp, self.frameDuration, flags, UInt(VPX_DL_REALTIME)),
            "encode"
        )
        var iterator: vpx_codec_iter_t? = nil
        while let packet = vpx_codec_get_cx_data(self.context, &iterator) {
            if packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT {
                let frame = packet.pointee.data.frame
                return UnsafeRawBufferPointer(start: frame.buf, count: frame.sz)
            }
        }
        throw CastRemoteDisplayError(.codecFailure, "libvpx produced no frame (internal frame dropping is off)")
    }

    /// Delta frames reference only the previous frame and update only it
    /// (no golden / alt-ref frames), so frame n+1 needs exactly frame n.
    static let deltaFlags = vpx_enc_frame_flags_t(
        VP8_EFLAG_NO_REF_GF | VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_GF | VP8_EFLAG_NO_UPD_ARF
    )

    private func control(_ id: vp8e_enc_control_id, _ value: Int32) throws(CastRemoteDisplayError) {
        try Self.check(cvpx_codec_control_int(self.context, Int32(id.rawValue), value), "control \(id.rawValue)")
    }

    private static func check(_ status: vpx_codec_err_t, _ operation: String) throws(CastRemoteDisplayError) {
        guard status != VPX_CODEC_OK else { return }
        throw CastRemoteDisplayError(
            .codecFailure,
            "libvpx failed to \(operation)",
            cause: CastRemoteDisplayError.LibraryFailure(
                library: "libvpx",
                status: Int32(status.rawValue),
                detail: String(cString: vpx_codec_err_to_string(status))
            )
        )
    }
}
