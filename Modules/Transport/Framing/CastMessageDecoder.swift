public import NIOCore

/// The inbound half of the framing: bytes in, ``CastMessage``s out.
///
/// A thin `ByteToMessageDecoder` over ``CastMessageFramer``. A framing error
/// is thrown into the pipeline, where ``InboundMessageHandler`` records it as
/// the reason and closes the socket.
@_spi(Receiver) public struct CastMessageDecoder: ByteToMessageDecoder {
    @_spi(Receiver) public typealias InboundOut = CastMessage

    /// Creates a decoder.
    @_spi(Receiver) public init() {}

    @_spi(Receiver) public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
        -> DecodingState
    {
        guard let message = try CastMessageFramer.nextMessage(from: &buffer) else {
            return .needMoreData
        }
        context.fireChannelRead(Self.wrapInboundOut(message))
        return .continue
    }

    @_spi(Receiver) public mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        // A partial frame at EOF is dropped with the connection.
        try self.decode(context: context, buffer: &buffer)
    }
}
