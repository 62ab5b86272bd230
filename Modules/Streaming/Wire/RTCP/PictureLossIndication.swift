/// PLI (PT 206, FMT 1, RFC 4585 §6.3.1): the receiver asks for a key frame
/// of the media SSRC.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |    PT=206     |           length=2            |  header
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |  body 0
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |  body 4
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
enum PictureLossIndication {
    /// The media SSRC a PLI `body` names; `nil` when it is too short.
    static func mediaSSRC(body: UnsafeRawBufferPointer) -> UInt32? {
        body.count >= 8 ? rtcpLoad32(body, 4) : nil
    }
}

extension RTCPWriter {
    @_spi(Receiver) public static func appendPictureLossIndication(
        senderSSRC: UInt32, mediaSSRC: UInt32, to bytes: inout [UInt8]
    ) {
        appendHeader(count: 1, type: RTCPPacketType.payloadFeedback, bodyBytes: 8, to: &bytes)
        append32(senderSSRC, to: &bytes)
        append32(mediaSSRC, to: &bytes)
    }
}
