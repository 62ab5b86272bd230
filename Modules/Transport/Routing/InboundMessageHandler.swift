import Logging
import NIOCore
import NIOSSL

/// The end of the sender's pipeline: routes each inbound message, turns
/// errors into the connection's close reason and closes the socket, and on
/// close finishes every subscription and reports the reason.
final class InboundMessageHandler: ChannelInboundHandler {
    typealias InboundIn = CastMessage

    private let router: MessageRouter
    private let closeReason: CloseReason
    private let onClose: @Sendable (CastTransportError) -> Void
    private let logger: Logger

    init(
        router: MessageRouter,
        closeReason: CloseReason,
        logger: Logger,
        onClose: @escaping @Sendable (CastTransportError) -> Void
    ) {
        self.router = router
        self.closeReason = closeReason
        self.logger = logger
        self.onClose = onClose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = Self.unwrapInboundIn(data)
        if self.router.route(message) == 0 {
            self.logger.debug(
                "no subscriber for an inbound message; dropped",
                metadata: [
                    "cast.namespace": "\(message.namespace)",
                    "cast.source": "\(message.sourceID)",
                    "cast.destination": "\(message.destinationID)",
                ]
            )
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let reason = Self.transportError(for: error)
        self.logger.debug("closing the connection", metadata: ["cast.reason": "\(reason)"])
        self.closeReason.record(reason)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.closeReason.record(CastTransportError(.closedByPeer, "the receiver closed the socket"))
        self.router.finish()
        self.onClose(self.closeReason.value(or: CastTransportError(.closedByPeer, "the receiver closed the socket")))
        context.fireChannelInactive()
    }

    /// Maps what the pipeline throws to the module's error.
    static func transportError(for error: any Error) -> CastTransportError {
        switch error {
        case let error as CastTransportError:
            return error
        case NIOSSLError.uncleanShutdown:
            return CastTransportError(.closedByPeer, "the receiver closed the socket without a TLS close")
        case let error as NIOSSLError:
            return CastTransportError(.networkError, "the TLS layer failed", cause: error)
        default:
            return CastTransportError(.networkError, "the socket failed", cause: error)
        }
    }
}
