import CastTransport
import Logging
import NIOCore

/// The receiver platform's end of one sender socket: virtual-connection
/// bookkeeping and the drop rule (Docs/spec/castv2-control.md §3: every
/// non-`tp.*` message without a virtual connection for its source and
/// destination is dropped), the device-auth responder, and observation.
final class EmulatorConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = CastMessage
    typealias OutboundOut = ByteBuffer

    private struct VirtualConnection: Hashable {
        var sourceID: String
        var destinationID: String
    }

    private let hub: EmulatorHub
    private let responder: DeviceAuthResponder
    private let logger: Logger
    private var connectionID = 0
    private var virtualConnections: Set<VirtualConnection> = []

    init(hub: EmulatorHub, responder: DeviceAuthResponder, logger: Logger) {
        self.hub = hub
        self.responder = responder
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.connectionID = self.hub.register(context.channel)
        self.hub.events.yield(.connectionOpened(connectionID: self.connectionID))
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.hub.unregister(self.connectionID)
        self.hub.events.yield(.connectionClosed(connectionID: self.connectionID))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.logger.debug(
            "closing a sender socket",
            metadata: ["cast.connection": "\(self.connectionID)", "cast.reason": "\(error)"]
        )
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = Self.unwrapInboundIn(data)
        switch message.namespace {
        case TransportNamespace.connection:
            self.handleConnectionMessage(message)
        case TransportNamespace.deviceAuth:
            self.hub.events.yield(.deviceAuthChallengeReceived(connectionID: self.connectionID))
            self.hub.events.yield(.messageReceived(connectionID: self.connectionID, message: message))
            if let reply = self.responder.reply(to: message, fault: self.hub.faults.deviceAuthentication) {
                self.write(reply, context: context)
            }
            return
        default:
            break
        }
        let link = VirtualConnection(sourceID: message.sourceID, destinationID: message.destinationID)
        if message.namespace.hasPrefix(TransportNamespace.platformPrefix) || self.virtualConnections.contains(link) {
            self.hub.events.yield(.messageReceived(connectionID: self.connectionID, message: message))
            for reply in self.hub.responder(for: message.namespace)?(message) ?? [] {
                self.write(reply, context: context)
            }
        } else {
            self.logger.debug(
                "dropping a message without a virtual connection",
                metadata: [
                    "cast.namespace": "\(message.namespace)",
                    "cast.source": "\(message.sourceID)",
                    "cast.destination": "\(message.destinationID)",
                ]
            )
            self.hub.events.yield(.messageDropped(connectionID: self.connectionID, message: message))
        }
    }

    /// Sends CLOSE from `sourceID` to the sender `destinationID` and forgets
    /// that virtual connection. Runs on the channel's event loop.
    func closeVirtualConnection(
        from sourceID: String,
        to destinationID: String,
        reason: VirtualConnectionCloseReason,
        context: ChannelHandlerContext
    ) {
        let link = VirtualConnection(sourceID: destinationID, destinationID: sourceID)
        self.virtualConnections.remove(link)
        guard let text = try? ConnectionMessage.close(reason: reason).text() else { return }
        let close = CastMessage(
            namespace: TransportNamespace.connection,
            sourceID: sourceID,
            destinationID: destinationID,
            payload: .string(text)
        )
        self.write(close, context: context)
        self.hub.events.yield(
            .virtualConnectionClosed(connectionID: self.connectionID, sourceID: destinationID, destinationID: sourceID)
        )
    }

    private func handleConnectionMessage(_ message: CastMessage) {
        let link = VirtualConnection(sourceID: message.sourceID, destinationID: message.destinationID)
        switch message.text.flatMap(ConnectionMessage.init(text:)) {
        case .connect(let type, _):
            self.virtualConnections.insert(link)
            self.hub.events.yield(
                .virtualConnectionOpened(
                    connectionID: self.connectionID,
                    sourceID: link.sourceID,
                    destinationID: link.destinationID,
                    type: type
                )
            )
        case .close:
            if self.virtualConnections.remove(link) != nil {
                self.hub.events.yield(
                    .virtualConnectionClosed(
                        connectionID: self.connectionID,
                        sourceID: link.sourceID,
                        destinationID: link.destinationID
                    )
                )
            }
        case nil:
            self.logger.debug(
                "dropping an unknown connection message", metadata: ["cast.source": "\(message.sourceID)"])
        }
    }

    private func write(_ message: CastMessage, context: ChannelHandlerContext) {
        do {
            let frame = try CastMessageFramer.frame(message, allocator: context.channel.allocator)
            context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
        } catch {
            self.logger.warning("cannot frame a reply", metadata: ["cast.reason": "\(error)"])
        }
    }
}
