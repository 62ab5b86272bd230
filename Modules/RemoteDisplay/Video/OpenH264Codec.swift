import CH264
import CastStreaming

/// Cisco's OpenH264 encoder for H.264 (Constrained Baseline, realtime screen
/// content), with every status mapped to `CastRemoteDisplayError` in one place.
///
/// OpenH264 (BSD-2-Clause, Debian's libopenh264 2.3.1) is the H.264 encoder
/// Debian packages that may be linked by an Apache-2.0 library without
/// changing its terms (x264 is GPL).
//
// @unchecked Sendable: the encoder is mutable C state, but an
// `OpenH264Codec` belongs to exactly one noncopyable `VideoEncoder` and is
// used only from its `mutating` methods, never by two threads at once.
final class OpenH264Codec: @unchecked Sendable {
    private let encoder: UnsafeMutablePointer<ISVCEncoder?>
    private let info = UnsafeMutablePointer<SFrameBSInfo>.allocate(capacity: 1)
    /// The last frame's bytes, grown as frames need.
    private var output = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    private var size: (width: Int, height: Int)
    private let frameRate: Int
    private let threads: Int
    private var bitrate: Int

    init(configuration: VideoEncoderConfiguration) throws(CastRemoteDisplayError) {
        var created: UnsafeMutablePointer<ISVCEncoder?>?
        guard ch264_encoder_create(&created) == 0, let created else {
            throw CastRemoteDisplayError(.codecFailure, "OpenH264 could not create an encoder")
        }
        self.encoder = created
        self.info.initialize(to: SFrameBSInfo())
        self.size = (configuration.width, configuration.height)
        self.frameRate = configuration.frameRate
        self.threads = configuration.threadCount
        self.bitrate = configuration.bitrate
        try self.initialize()
    }

    deinit {
        _ = ch264_encoder_uninitialize(self.encoder)
        ch264_encoder_destroy(self.encoder)
        self.info.deallocate()
        self.output.deallocate()
    }

    private func initialize() throws(CastRemoteDisplayError) {
        try Self.check(
            ch264_encoder_initialize(
                self.encoder, Int32(self.size.width), Int32(self.size.height), Int32(self.bitrate),
                Float(self.frameRate), Int32(self.threads)),
            "initialise \(self.size.width)×\(self.size.height)")
    }

    func setBitrate(_ bitsPerSecond: Int) throws(CastRemoteDisplayError) {
        try Self.check(ch264_encoder_set_bitrate(self.encoder, Int32(bitsPerSecond)), "set the bitrate")
        self.bitrate = bitsPerSecond
    }

    /// A new size starts the encoder afresh (OpenH264 fixes the size at
    /// initialisation); the next frame is an IDR either way.
    func setSize(width: Int, height: Int) throws(CastRemoteDisplayError) {
        let previous = self.size
        _ = ch264_encoder_uninitialize(self.encoder)
        self.size = (width, height)
        do {
            try self.initialize()
        } catch {
            self.size = previous
            try? self.initialize()
            throw error
        }
    }

    /// Encodes the I420 picture in `storage`; the returned bytes (Annex B
    /// NAL units) are valid until the next call.
    func encode(_ storage: PixelStorage, timestamp: Int64, keyFrame: Bool) throws(CastRemoteDisplayError)
        -> UnsafeRawBufferPointer
    {
        if keyFrame { try Self.check(ch264_encoder_force_key_frame(self.encoder), "force a key frame") }
        let layout = storage.layout
        let plane = { (index: Int) in (storage.bytes + layout.offsets[index]).assumingMemoryBound(to: UInt8.self) }
        // Fixed-size tuples on the stack: nothing allocated per frame.
        var planes: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) = (
            plane(0), plane(1), plane(2)
        )
        var strides = (Int32(layout.bytesPerRow[0]), Int32(layout.bytesPerRow[1]), Int32(layout.bytesPerRow[2]))
        let status = withUnsafeMutableBytes(of: &planes) { planes in
            withUnsafeBytes(of: &strides) { strides in
                ch264_encoder_encode(
                    self.encoder, planes.baseAddress?.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                    strides.baseAddress?.assumingMemoryBound(to: Int32.self), Int32(self.size.width),
                    Int32(self.size.height), timestamp / 1_000, self.info)
            }
        }
        try Self.check(status, "encode")
        guard !ch264_frame_is_skipped(self.info) else {
            throw CastRemoteDisplayError(.codecFailure, "OpenH264 skipped a frame (frame skipping is off)")
        }
        let count = Int(ch264_frame_size(self.info))
        if self.output.count < count {
            self.output.deallocate()
            self.output = UnsafeMutableRawBufferPointer.allocate(byteCount: count * 2, alignment: 16)
        }
        ch264_frame_copy(self.info, self.output.baseAddress?.assumingMemoryBound(to: UInt8.self))
        return UnsafeRawBufferPointer(rebasing: self.output[0..<count])
    }

    private static func check(_ status: Int32, _ operation: String) throws(CastRemoteDisplayError) {
        guard status != 0 else { return }
        throw CastRemoteDisplayError(
            .codecFailure, "OpenH264 failed to \(operation)",
            cause: CastRemoteDisplayError.LibraryFailure(
                library: "libopenh264", status: status, detail: "status \(status)"))
    }
}
