import CAVCodec
@_spi(Receiver) package import CastStreaming

/// FFmpeg's decoders (libavcodec) for H.264 and AV1 (through dav1d), as a
/// receiver has them: Open Screen's receiver decodes both through FFmpeg,
/// and neither is the library the sender encodes with (OpenH264, libaom),
/// so what they decode proves the stream. Not thread-safe: one owner.
package final class LibavcodecDecoder: VideoDecoding {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// A frame's bytes with the zeroed padding libavcodec reads past the end.
    private var padded: [UInt8] = []

    /// A decoder for `codec`: H.264 or AV1.
    package init(codec: VideoCodec) {
        // FFmpeg logs at its info level by default (dav1d prints its version on
        // every open): the emulator's own report says what was decoded.
        av_log_set_level(AV_LOG_ERROR)
        let decoder =
            codec == .av1
            ? avcodec_find_decoder_by_name("libdav1d") ?? avcodec_find_decoder(AV_CODEC_ID_AV1)
            : avcodec_find_decoder(AV_CODEC_ID_H264)
        guard let decoder, let context = avcodec_alloc_context3(decoder) else { return }
        // A receiver shows each frame as it completes: no reordering or
        // frame-threading delay (the sender's streams have no B-frames), one thread.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
        context.pointee.thread_count = 1
        guard avcodec_open2(context, decoder, nil) == 0 else {
            var failed: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&failed)
            return
        }
        self.context = context
        self.packet = av_packet_alloc()
        self.frame = av_frame_alloc()
    }

    deinit {
        avcodec_free_context(&self.context)
        av_packet_free(&self.packet)
        av_frame_free(&self.frame)
    }

    /// Decodes one frame (H.264 Annex B NAL units, an AV1 temporal unit); `nil` on a decode error or when it gives no picture.
    package func decode(_ bytes: [UInt8]) -> DecodedPicture? {
        guard let context, let packet, let frame, !bytes.isEmpty else { return nil }
        self.padded.removeAll(keepingCapacity: true)
        self.padded.append(contentsOf: bytes)
        self.padded.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
        let sent = self.padded.withUnsafeMutableBufferPointer { buffer -> Int32 in
            packet.pointee.data = buffer.baseAddress
            packet.pointee.size = Int32(bytes.count)
            defer {
                packet.pointee.data = nil
                packet.pointee.size = 0
            }
            return avcodec_send_packet(context, packet)
        }
        guard sent == 0, avcodec_receive_frame(context, frame) == 0 else { return nil }
        defer { av_frame_unref(frame) }
        guard frame.pointee.format == AV_PIX_FMT_YUV420P.rawValue else { return nil }
        let width = Int(frame.pointee.width)
        let height = Int(frame.pointee.height)
        let pointers = [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2]
        let strides = [Int(frame.pointee.linesize.0), Int(frame.pointee.linesize.1), Int(frame.pointee.linesize.2)]
        return DecodedPicture(width: width, height: height, copying: pointers, strides: strides)
    }
}
