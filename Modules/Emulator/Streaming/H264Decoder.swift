import CAVCodec
import CastRemoteDisplay

/// FFmpeg's H.264 decoder (libavcodec), as a receiver has one: Open Screen's
/// receiver decodes H.264 through it too, and it is not the library the
/// sender encodes with (OpenH264), so what it decodes proves the stream.
/// Not thread-safe: one owner.
package final class H264Decoder: VideoDecoding {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// A frame's bytes with the zeroed padding libavcodec reads past the end.
    private var padded: [UInt8] = []

    package init() {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264), let context = avcodec_alloc_context3(codec) else {
            return
        }
        // A receiver shows each frame as it completes: no reordering delay
        // (the sender's Constrained Baseline has no B-frames), one thread.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
        context.pointee.thread_count = 1
        guard avcodec_open2(context, codec, nil) == 0 else {
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

    /// Decodes one frame (Annex B NAL units); `nil` on a decode error or when it gives no picture.
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
