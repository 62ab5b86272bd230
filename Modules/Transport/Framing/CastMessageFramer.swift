import Foundation
public import NIOCore
import SwiftProtobuf

/// Frames and unframes ``CastMessage``s (Docs/spec/castv2-control.md §2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |               body length, big-endian, 1...65536              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          body: a serialized cast.channel.CastMessage          :
/// :                                                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// A length of 0 or over 65536, or a body that is not a valid `CastMessage`,
/// is fatal for the socket: ``nextMessage(from:)`` throws and consumes nothing.
public enum CastMessageFramer {
    /// Serializes `message` and prefixes it with its length.
    ///
    /// - Throws: ``CastTransportError/Code/invalidMessage`` for an empty
    ///   namespace, source or destination id;
    ///   ``CastTransportError/Code/messageTooLarge`` for a body over 65536 bytes.
    public static func frame(
        _ message: CastMessage,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) throws(CastTransportError) -> ByteBuffer {
        guard !message.namespace.isEmpty, !message.sourceID.isEmpty, !message.destinationID.isEmpty else {
            throw CastTransportError(.invalidMessage, "namespace, source and destination ids must not be empty")
        }
        let body: [UInt8]
        do {
            body = try message.wire.serializedBytes()
        } catch {
            throw CastTransportError(.invalidMessage, "the message does not serialize", cause: error)
        }
        guard body.count <= TransportConstants.maximumBodyLength else {
            throw CastTransportError(
                .messageTooLarge,
                "the message is \(body.count) bytes; the limit is \(TransportConstants.maximumBodyLength)"
            )
        }
        var buffer = allocator.buffer(capacity: TransportConstants.lengthPrefixSize + body.count)
        buffer.writeInteger(UInt32(body.count), endianness: .big)
        buffer.writeBytes(body)
        return buffer
    }

    /// Reads one message from the front of `buffer`.
    ///
    /// - Returns: the message, with its frame consumed; `nil` when `buffer`
    ///   does not yet hold a whole frame (nothing is consumed).
    /// - Throws: ``CastTransportError/Code/emptyFrame``,
    ///   ``CastTransportError/Code/frameTooLarge`` or
    ///   ``CastTransportError/Code/malformedMessage``; nothing is consumed.
    public static func nextMessage(from buffer: inout ByteBuffer) throws(CastTransportError) -> CastMessage? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return nil
        }
        guard length > 0 else {
            throw CastTransportError(.emptyFrame, "a frame's length prefix is 0")
        }
        guard length <= TransportConstants.maximumBodyLength else {
            throw CastTransportError(
                .frameTooLarge,
                "a frame's length prefix is \(length); the limit is \(TransportConstants.maximumBodyLength)"
            )
        }
        let bodyStart = buffer.readerIndex + TransportConstants.lengthPrefixSize
        guard let body = buffer.getSlice(at: bodyStart, length: Int(length)) else {
            return nil
        }
        let wire: Cast_Channel_CastMessage
        do {
            wire = try Cast_Channel_CastMessage(serializedBytes: body.readableBytesSpan)
        } catch {
            throw CastTransportError(.malformedMessage, "a frame's body is not a CastMessage", cause: error)
        }
        let message = try CastMessage(wire: wire)
        buffer.moveReaderIndex(forwardBy: TransportConstants.lengthPrefixSize + Int(length))
        return message
    }
}
