import NIOCore
import NIOSSL
import NIOTLS

/// Completes `promise` with the receiver's certificate (DER) once the TLS
/// handshake finishes, or fails it if the handshake fails or the socket
/// closes first; then steps out of the pipeline.
final class TLSHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let promise: EventLoopPromise<[UInt8]>
    private let closeReason: CloseReason

    init(promise: EventLoopPromise<[UInt8]>, closeReason: CloseReason) {
        self.promise = promise
        self.closeReason = closeReason
    }

    /// Fails the handshake with `error`, which also becomes the close reason.
    private func fail(_ error: CastTransportError) {
        self.closeReason.record(error)
        self.promise.fail(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Pass the event on first: the heartbeat starts on it.
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted = event {
            let sync = context.pipeline.syncOperations
            let certificate = try? sync.handler(type: NIOSSLClientHandler.self).peerCertificate?.toDERBytes()
            self.promise.succeed(certificate ?? [])
            sync.removeHandler(context: context, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.fail(CastTransportError(.tlsHandshakeFailed, "the TLS handshake failed", cause: error))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(CastTransportError(.tlsHandshakeFailed, "the receiver closed the socket during the handshake"))
        context.fireChannelInactive()
    }
}
